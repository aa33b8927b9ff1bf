-- TLS certificates for the HTTPS listener (docs/tls.md). The private key is
-- sealed under CAIRN_MASTER_KEY (lib/secret-box.ts) before it gets here.
-- Rows are ReplacingMergeTree versions read with FINAL; activating a
-- certificate writes a new version of it and of the one it replaces.

CREATE TABLE IF NOT EXISTS tls_certificates
(
    org_id             LowCardinality(String),
    id                 UUID,
    -- of the leaf, as "CN=..., O=..."
    subject            String,
    -- subject alternative names of the leaf, e.g. "DNS:cairn.example.com", "IP Address:10.0.0.5"
    sans               Array(String),
    issuer             String,
    -- hex, as the certificate holds it
    serial             String,
    -- SHA-256 of the leaf's DER, colon-separated hex
    fingerprint_sha256 String,
    not_before         DateTime64(3, 'UTC'),
    not_after          DateTime64(3, 'UTC'),
    -- PEM: the leaf first, then the intermediates as uploaded
    chain_pem          String,
    -- the PKCS#8 PEM private key, sealed ("v1:<iv>:<tag>:<ciphertext>"); never plaintext
    key_sealed         String,
    active             Bool,
    -- when it was last activated: of two rows marked active (two activations at once), the later one is served
    activated_at       Nullable(DateTime64(3, 'UTC')),
    created_at         DateTime64(3, 'UTC'),
    created_by         String,
    version            UInt64,
    is_deleted         UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);
