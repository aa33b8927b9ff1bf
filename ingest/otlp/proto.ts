// The OTLP logs messages cairn reads and answers with, as a protobufjs JSON
// descriptor written from the OpenTelemetry protocol's .proto files
// (opentelemetry/proto/{collector/logs,logs,common,resource}/v1) and
// google.rpc.Status, which OTLP/HTTP answers failures with. Only field
// numbers and types matter on the wire; field names are the lowerCamelCase
// names of OTLP's JSON encoding, so that a decoded protobuf message and a
// parsed JSON one have the same shape. Fields cairn does not read (e.g. the
// resource's entity references) are left out: protobuf skips unknown fields.
import protobuf from 'protobufjs';

const descriptor = {
  nested: {
    otlp: {
      nested: {
        AnyValue: {
          oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
          fields: {
            stringValue: { type: 'string', id: 1 },
            boolValue: { type: 'bool', id: 2 },
            intValue: { type: 'int64', id: 3 },
            doubleValue: { type: 'double', id: 4 },
            arrayValue: { type: 'ArrayValue', id: 5 },
            kvlistValue: { type: 'KeyValueList', id: 6 },
            bytesValue: { type: 'bytes', id: 7 },
          },
        },
        ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
        KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
        KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
        InstrumentationScope: {
          fields: {
            name: { type: 'string', id: 1 },
            version: { type: 'string', id: 2 },
            attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
            droppedAttributesCount: { type: 'uint32', id: 4 },
          },
        },
        Resource: {
          fields: {
            attributes: { rule: 'repeated', type: 'KeyValue', id: 1 },
            droppedAttributesCount: { type: 'uint32', id: 2 },
          },
        },
        LogRecord: {
          fields: {
            timeUnixNano: { type: 'fixed64', id: 1 },
            severityNumber: { type: 'int32', id: 2 },
            severityText: { type: 'string', id: 3 },
            body: { type: 'AnyValue', id: 5 },
            attributes: { rule: 'repeated', type: 'KeyValue', id: 6 },
            droppedAttributesCount: { type: 'uint32', id: 7 },
            flags: { type: 'fixed32', id: 8 },
            traceId: { type: 'bytes', id: 9 },
            spanId: { type: 'bytes', id: 10 },
            observedTimeUnixNano: { type: 'fixed64', id: 11 },
            eventName: { type: 'string', id: 12 },
          },
        },
        ScopeLogs: {
          fields: {
            scope: { type: 'InstrumentationScope', id: 1 },
            logRecords: { rule: 'repeated', type: 'LogRecord', id: 2 },
            schemaUrl: { type: 'string', id: 3 },
          },
        },
        ResourceLogs: {
          fields: {
            resource: { type: 'Resource', id: 1 },
            scopeLogs: { rule: 'repeated', type: 'ScopeLogs', id: 2 },
            schemaUrl: { type: 'string', id: 3 },
          },
        },
        ExportLogsServiceRequest: { fields: { resourceLogs: { rule: 'repeated', type: 'ResourceLogs', id: 1 } } },
        ExportLogsPartialSuccess: {
          fields: {
            rejectedLogRecords: { type: 'int64', id: 1 },
            errorMessage: { type: 'string', id: 2 },
          },
        },
        ExportLogsServiceResponse: { fields: { partialSuccess: { type: 'ExportLogsPartialSuccess', id: 1 } } },
        // google.protobuf.Any and google.rpc.Status, the body of every OTLP/HTTP failure.
        Any: { fields: { typeUrl: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
        Status: {
          fields: {
            code: { type: 'int32', id: 1 },
            message: { type: 'string', id: 2 },
            details: { rule: 'repeated', type: 'Any', id: 3 },
          },
        },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(descriptor);

export const ExportLogsServiceRequest = root.lookupType('otlp.ExportLogsServiceRequest');
export const ExportLogsServiceResponse = root.lookupType('otlp.ExportLogsServiceResponse');
export const Status = root.lookupType('otlp.Status');
