// A Confluent-compatible schema registry for tests: CAIRN_TEST_SCHEMA_REGISTRY_URL
// if set, else Apicurio Registry in a container if Docker runs, else
// Apicurio's runnable jar from Maven Central started with `java`
// (3.0.x: the 3.3 line needs Java 21). In-memory storage either way.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dockerAvailable } from './docker.js';
import { commandExists, freePort, spawnLogged, stopProcess, waitFor, type RunningService } from './process.js';

const APICURIO_VERSION = '3.0.9';
const HERE = path.dirname(fileURLToPath(import.meta.url));
const APP_DIR = path.resolve(HERE, '../../node_modules/.cache/cairn', `apicurio-${APICURIO_VERSION}`);
const CCOMPAT_PATH = '/apis/ccompat/v7';

async function registryAnswers(url: string): Promise<void> {
  const res = await fetch(`${url}/subjects`);
  if (!res.ok) throw new Error(`schema registry answered ${res.status}`);
}

function fetchApicurio(): string {
  const jar = path.join(APP_DIR, `apicurio-registry-app-${APICURIO_VERSION}-runner.jar`);
  if (fs.existsSync(jar)) return jar;
  if (!commandExists('mvn')) throw new Error('schema registry tests need Docker, or Maven and Java 17 (apt-get install maven openjdk-17-jre-headless)');
  fs.mkdirSync(APP_DIR, { recursive: true });
  const artifact = `io.apicurio:apicurio-registry-app:${APICURIO_VERSION}:tar.gz:all`;
  execFileSync('mvn', ['-q', 'dependency:copy', `-Dartifact=${artifact}`, `-DoutputDirectory=${APP_DIR}`], { stdio: 'inherit', cwd: os.tmpdir() });
  const archive = path.join(APP_DIR, `apicurio-registry-app-${APICURIO_VERSION}-all.tar.gz`);
  execFileSync('tar', ['xzf', archive, '-C', APP_DIR]);
  fs.rmSync(archive);
  return jar;
}

export async function startSchemaRegistry(): Promise<RunningService> {
  const fromEnv = process.env.CAIRN_TEST_SCHEMA_REGISTRY_URL;
  if (fromEnv) {
    await waitFor('schema registry from CAIRN_TEST_SCHEMA_REGISTRY_URL', () => registryAnswers(fromEnv), 30_000);
    return { name: 'schema-registry', address: fromEnv, origin: 'CAIRN_TEST_SCHEMA_REGISTRY_URL', stop: async () => {} };
  }
  if (await dockerAvailable()) {
    const { GenericContainer, Wait } = await import('testcontainers');
    const image = `apicurio/apicurio-registry:${APICURIO_VERSION}`;
    const container = await new GenericContainer(image).withExposedPorts(8080).withWaitStrategy(Wait.forHttp(`${CCOMPAT_PATH}/subjects`, 8080)).start();
    const url = `http://${container.getHost()}:${container.getMappedPort(8080)}${CCOMPAT_PATH}`;
    return { name: 'schema-registry', address: url, origin: `Docker (testcontainers, ${image})`, stop: async () => void (await container.stop()) };
  }
  if (!commandExists('java')) throw new Error('schema registry tests need Docker or Java 17 (apt-get install openjdk-17-jre-headless)');
  const jar = fetchApicurio();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-registry-'));
  const port = await freePort();
  const logFile = path.join(dir, 'registry.log');
  const child = spawnLogged('java', ['-Xmx384m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Dquarkus.http.host=127.0.0.1', `-Dquarkus.http.port=${port}`, '-jar', jar], logFile, { cwd: dir });
  const url = `http://127.0.0.1:${port}${CCOMPAT_PATH}`;
  await waitFor('Apicurio Registry', () => registryAnswers(url), 90_000, child, logFile);
  return {
    name: 'schema-registry',
    address: url,
    origin: `Apicurio Registry ${APICURIO_VERSION} from Maven Central (java, pid ${child.pid})`,
    async stop() {
      await stopProcess(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
