-- Chat sessions of the AI assistant and their messages (docs/ai.md). A
-- session belongs to one user (`owner`: a user id, or the subject of an
-- operator token, which is not a UUID: hence String). Messages hold the
-- question, the model's tool calls (JSON), each tool's result, and the
-- answer with why the loop stopped and the tokens it used. `seq` is the
-- message's place in its session (UUIDv7 ids are not ordered within a
-- millisecond). Deleting a
-- session writes tombstones for it and its messages.

CREATE TABLE IF NOT EXISTS ai_sessions
(
    org_id     LowCardinality(String),
    id         UUID,
    owner      String,
    title      String,
    config_id  UUID,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    version    UInt64,
    is_deleted UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);

CREATE TABLE IF NOT EXISTS ai_messages
(
    org_id            LowCardinality(String),
    session_id        UUID,
    id                UUID,
    seq               UInt32,
    role              LowCardinality(String),
    content           String,
    tool_calls        String,
    tool_call_id      String,
    tool_name         String,
    is_error          Bool,
    stop_reason       LowCardinality(String),
    prompt_tokens     UInt32,
    completion_tokens UInt32,
    created_at        DateTime64(3, 'UTC'),
    version           UInt64,
    is_deleted        UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, session_id, id);
