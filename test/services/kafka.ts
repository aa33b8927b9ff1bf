// A Kafka broker for tests: CAIRN_TEST_KAFKA_BROKERS if set, else a container
// (testcontainers) if Docker runs, else Apache Kafka 3.9.1 started from
// Maven Central jars with `java` (KRaft, one combined broker and controller).
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { dockerAvailable } from './docker.js';
import { commandExists, freePort, spawnLogged, stopProcess, waitFor, type RunningService } from './process.js';

const KAFKA_VERSION = '3.9.1';
const HERE = path.dirname(fileURLToPath(import.meta.url));
const LIBS_DIR = path.resolve(HERE, '../../node_modules/.cache/cairn', `kafka-${KAFKA_VERSION}`, 'libs');

async function brokerAnswers(brokers: string): Promise<void> {
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
  try {
    await admin.connect();
    await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}

/** Downloads the broker jars once (Maven caches them in ~/.m2 too). */
export function fetchKafkaJars(): string {
  if (fs.existsSync(path.join(LIBS_DIR, '.complete'))) return LIBS_DIR;
  if (!commandExists('mvn')) throw new Error('Kafka tests need Docker, or Maven and Java 17 to run a local broker (apt-get install maven openjdk-17-jre-headless)');
  fs.mkdirSync(LIBS_DIR, { recursive: true });
  execFileSync('mvn', ['-q', '-f', path.join(HERE, 'kafka', 'pom.xml'), 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${LIBS_DIR}`], {
    stdio: 'inherit',
  });
  fs.writeFileSync(path.join(LIBS_DIR, '.complete'), KAFKA_VERSION);
  return LIBS_DIR;
}

/** A broker of the test's own, which it may stop and start again on the same port and data. */
export interface LocalBroker extends RunningService {
  /** Stops the broker (SIGKILL with `hard`, as a crash; else SIGTERM, as a clean stop) and starts it again; resolves once it answers. */
  restart(options?: { hard?: boolean; downMs?: number }): Promise<void>;
}

/** Starts Apache Kafka from the jars (Java 17); `properties` add to or override the broker's settings. */
export async function startLocalBroker(properties: string[] = []): Promise<LocalBroker> {
  if (!commandExists('java')) throw new Error('Kafka tests need Docker or Java 17 (apt-get install openjdk-17-jre-headless)');
  const libs = fetchKafkaJars();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-kafka-'));
  const [port, controllerPort] = [await freePort(), await freePort()];
  const propertiesFile = path.join(dir, 'server.properties');
  fs.writeFileSync(
    propertiesFile,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
      `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
      'controller.listener.names=CONTROLLER',
      'inter.broker.listener.name=PLAINTEXT',
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      `log.dirs=${path.join(dir, 'data')}`,
      'num.partitions=1',
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'group.initial.rebalance.delay.ms=0',
      'auto.create.topics.enable=false',
      ...properties,
    ].join('\n'),
  );
  const log4j = path.join(dir, 'log4j.properties');
  fs.writeFileSync(
    log4j,
    ['log4j.rootLogger=WARN, file', 'log4j.appender.file=org.apache.log4j.FileAppender', `log4j.appender.file.File=${path.join(dir, 'broker.log')}`, 'log4j.appender.file.layout=org.apache.log4j.PatternLayout', 'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n', 'log4j.logger.kafka.server.KafkaServer=INFO', 'log4j.logger.kafka.server.KafkaRaftServer=INFO'].join('\n'),
  );
  const classpath = `${libs}/*`;
  const clusterId = randomBytes(16).toString('base64url').slice(0, 22);
  // `--cluster-id=<id>`, never `-t <id>`: one id in 64 starts with "-", which the tool then reads as an option and fails.
  // Not execFileSync: on a loaded machine the JVM takes over 10 s, and a blocked event loop timed out the other
  // services' probes started beside it (Redis answered "Connection is closed").
  await promisify(execFile)('java', ['-cp', classpath, `-Dlog4j.configuration=file:${log4j}`, 'kafka.tools.StorageTool', 'format', `--cluster-id=${clusterId}`, '-c', propertiesFile, '--ignore-formatted']);
  const logFile = path.join(dir, 'stdout.log');
  const address = `127.0.0.1:${port}`;
  const launch = async () => {
    const started = spawnLogged('java', ['-Xms256m', '-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', classpath, `-Dlog4j.configuration=file:${log4j}`, 'kafka.Kafka', propertiesFile], logFile);
    await waitFor('Kafka broker', () => brokerAnswers(address), 90_000, started, logFile);
    return started;
  };
  let child = await launch();
  return {
    name: 'kafka',
    address,
    origin: `Apache Kafka ${KAFKA_VERSION} from local jars (java, pid ${child.pid}, ${dir})`,
    async restart({ hard = false, downMs = 0 } = {}) {
      if (hard) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      } else await stopProcess(child, 10_000);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      child = await launch();
    },
    async stop() {
      await stopProcess(child, 10_000);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startKafka(): Promise<RunningService> {
  const fromEnv = process.env.CAIRN_TEST_KAFKA_BROKERS;
  if (fromEnv) {
    await waitFor('Kafka broker from CAIRN_TEST_KAFKA_BROKERS', () => brokerAnswers(fromEnv.split(',')[0]!), 30_000);
    return { name: 'kafka', address: fromEnv, origin: 'CAIRN_TEST_KAFKA_BROKERS', stop: async () => {} };
  }
  if (await dockerAvailable()) {
    const { KafkaContainer } = await import('@testcontainers/kafka');
    const container = await new KafkaContainer('confluentinc/cp-kafka:7.9.0').withKraft().start();
    const address = `${container.getHost()}:${container.getMappedPort(9093)}`;
    return { name: 'kafka', address, origin: 'Docker (testcontainers, confluentinc/cp-kafka:7.9.0)', stop: async () => void (await container.stop()) };
  }
  return startLocalBroker();
}
