// Sends messages to an in-process bus, reports each acknowledged send, and
// keeps sending until SIGKILLed: what it reported must survive the kill.
// Run: node --import tsx test/helpers/bus-producer-child.ts <dir> <topic>
import { createLogger } from '../../lib/logger.js';
import { LocalBus } from '../../pipeline/bus/local/local-bus.js';

const [dir, topic] = process.argv.slice(2) as [string, string];
const bus = await LocalBus.open(dir, { partitions: 1, segmentBytes: 4096, logger: createLogger('warn') });
await bus.ensureTopics([{ name: topic, consumers: ['reader'] }]);
for (let batch = 0; ; batch++) {
  await bus.send(topic, Array.from({ length: 10 }, (_, i) => ({ key: null, value: Buffer.from(String(batch * 10 + i)) })));
  process.stdout.write(`ACKED ${batch * 10 + 9}\n`);
}
