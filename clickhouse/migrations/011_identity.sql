-- Identity and access (docs/identity.md): users, custom roles, API keys,
-- settings (auth configuration, secrets sealed under CAIRN_MASTER_KEY) and the
-- audit log. Mutable rows are ReplacingMergeTree versions read with FINAL.
-- Times a login or a key use moves forward live in their own tables, where
-- the newest time wins, so a login never overwrites an admin's concurrent
-- change to the user row.

CREATE TABLE IF NOT EXISTS users
(
    org_id        LowCardinality(String),
    id            UUID,
    -- lower-cased; unique per organization (checked under a lock at write)
    email         String,
    name          String,
    role_id       UUID,
    active        Bool,
    -- scrypt hash in PHC string form; empty for users who log in through LDAP or SAML only
    password_hash String,
    -- where the account comes from: local, ldap or saml
    source        LowCardinality(String),
    -- the LDAP DN or SAML NameID of a provisioned user
    external_id   String,
    created_at    DateTime64(3, 'UTC'),
    updated_at    DateTime64(3, 'UTC'),
    version       UInt64,
    is_deleted    UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);

CREATE TABLE IF NOT EXISTS user_logins
(
    org_id     LowCardinality(String),
    user_id    UUID,
    last_login DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(last_login)
ORDER BY (org_id, user_id);

CREATE TABLE IF NOT EXISTS roles
(
    org_id      LowCardinality(String),
    id          UUID,
    name        String,
    description String,
    permissions Array(LowCardinality(String)),
    created_at  DateTime64(3, 'UTC'),
    updated_at  DateTime64(3, 'UTC'),
    version     UInt64,
    is_deleted  UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);

CREATE TABLE IF NOT EXISTS api_keys
(
    org_id      LowCardinality(String),
    id          UUID,
    user_id     UUID,
    name        String,
    permissions Array(LowCardinality(String)),
    -- SHA-256 of the secret (256 random bits, so a fast hash is enough)
    secret_hash String,
    expires_at  Nullable(DateTime64(3, 'UTC')),
    revoked_at  Nullable(DateTime64(3, 'UTC')),
    created_at  DateTime64(3, 'UTC'),
    version     UInt64,
    is_deleted  UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);

CREATE TABLE IF NOT EXISTS api_key_uses
(
    org_id       LowCardinality(String),
    key_id       UUID,
    last_used_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(last_used_at)
ORDER BY (org_id, key_id);

-- One JSON document per setting name (e.g. 'auth'); secrets inside are sealed.
CREATE TABLE IF NOT EXISTS settings
(
    org_id     LowCardinality(String),
    name       LowCardinality(String),
    value      String,
    updated_at DateTime64(3, 'UTC'),
    updated_by String,
    version    UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, name);

-- Append only: the API has no route that changes or deletes a row.
CREATE TABLE IF NOT EXISTS audit_log
(
    org_id      LowCardinality(String),
    id          UUID,
    at          DateTime64(3, 'UTC'),
    actor_id    String,
    actor_email String,
    -- how the actor authenticated: session, token, api_key, service, anonymous
    actor_via   LowCardinality(String),
    action      LowCardinality(String),
    target_type LowCardinality(String),
    target_id   String,
    outcome     LowCardinality(String),
    client_ip   String,
    request_id  String,
    -- redacted JSON of the resource before and after the change
    before      String,
    after       String
)
ENGINE = MergeTree
ORDER BY (org_id, at, id);
