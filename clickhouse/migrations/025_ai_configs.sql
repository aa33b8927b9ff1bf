-- AI configurations (docs/ai.md): which model provider the assistant calls,
-- with what limits. `api_key` is sealed under CAIRN_MASTER_KEY (empty when
-- the endpoint needs none, e.g. a local model server). One default per
-- organization is kept by the API, which clears the flag elsewhere when it
-- sets it.

CREATE TABLE IF NOT EXISTS ai_configs
(
    org_id                 LowCardinality(String),
    id                     UUID,
    name                   String,
    provider               LowCardinality(String),
    base_url               String,
    model                  String,
    api_key                String,
    temperature            Nullable(Float64),
    max_output_tokens      UInt32,
    max_tokens_per_message UInt32,
    max_tool_calls         UInt16,
    timeout_seconds        UInt16,
    is_default             Bool,
    enabled                Bool,
    created_by             String,
    created_at             DateTime64(3, 'UTC'),
    updated_at             DateTime64(3, 'UTC'),
    version                UInt64,
    is_deleted             UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);
