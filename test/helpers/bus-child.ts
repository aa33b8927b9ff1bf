// A consumer in its own process, for the "killed consumer" contract test:
// it commits the first batch, then hangs inside the second and waits to be
// SIGKILLed. Run: node --import tsx test/helpers/bus-child.ts '<json>'
import { createLogger } from '../../lib/logger.js';
import { KafkaBus } from '../../pipeline/bus/kafka-bus.js';
import { LocalBus } from '../../pipeline/bus/local/local-bus.js';
import type { Bus } from '../../pipeline/bus/types.js';

interface ChildArgs {
  kind: 'local' | 'kafka';
  location: string;
  topic: string;
  group: string;
  maxBatchSize: number;
  sessionTimeoutMs: number;
}

const args = JSON.parse(process.argv[2]!) as ChildArgs;
const logger = createLogger('warn');
const bus: Bus =
  args.kind === 'local'
    ? await LocalBus.open(args.location, { partitions: 1, segmentBytes: 64 * 1024 * 1024, logger })
    : new KafkaBus({ brokers: args.location.split(','), clientId: 'cairn-test-child', partitions: 1, logger, sessionTimeoutMs: args.sessionTimeoutMs });
await bus.ensureTopics([{ name: args.topic, consumers: [args.group] }]);

let batches = 0;
await bus.subscribe({
  group: args.group,
  topic: args.topic,
  maxBatchSize: args.maxBatchSize,
  maxWaitMs: 10,
  handler: async (batch) => {
    batches++;
    if (batches === 1) {
      process.stdout.write(`HANDLED ${batch[0]!.offset}-${batch[batch.length - 1]!.offset}\n`);
      return;
    }
    process.stdout.write(`HANGING ${batch[0]!.offset}\n`);
    await new Promise(() => setInterval(() => {}, 60_000)); // never finishes: this batch must not be committed
  },
});
