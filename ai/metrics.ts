// AI accounting (Prometheus, `svc_` prefix, default registry, so it is in
// GET /v1/metrics with every other process's): model calls and tokens per
// user and configuration, tool calls per surface, tool, user and outcome.
import { Counter } from 'prom-client';

export const aiMetrics = {
  modelCalls: new Counter({ name: 'svc_ai_model_calls_total', help: 'Calls to a model provider, by AI configuration, user and outcome (ok, error, timeout)', labelNames: ['config_id', 'user', 'outcome'] as const }),
  tokens: new Counter({ name: 'svc_ai_tokens_total', help: 'Tokens the model providers counted, by AI configuration, user and kind (prompt, completion)', labelNames: ['config_id', 'user', 'kind'] as const }),
  messages: new Counter({ name: 'svc_ai_messages_total', help: 'Assistant messages answered, by AI configuration, user and stop reason', labelNames: ['config_id', 'user', 'stop_reason'] as const }),
  toolCalls: new Counter({ name: 'svc_ai_tool_calls_total', help: 'Tool calls, by surface (assistant, mcp), tool, user and outcome (ok, error, refused)', labelNames: ['surface', 'tool', 'user', 'outcome'] as const }),
};
