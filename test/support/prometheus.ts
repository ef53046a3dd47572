import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server-process';
import { waitForOrFail } from './wait-for';

/** Debian's packages (`apt-get install prometheus prometheus-libvirt-exporter`); installing them starts no daemon. */
export const PROMETHEUS = '/usr/bin/prometheus';
export const LIBVIRT_EXPORTER = '/usr/bin/prometheus-libvirt-exporter';

/** The Prometheus tests run where both are installed, and always in CI (`CI` set), where a missing one is a failure. */
export function prometheusTestsEnabled(): boolean {
  if ((existsSync(PROMETHEUS) && existsSync(LIBVIRT_EXPORTER)) || process.env.CI) return true;
  process.stderr.write(
    `Skipping Prometheus tests: ${PROMETHEUS} or ${LIBVIRT_EXPORTER} is missing (apt-get install prometheus prometheus-libvirt-exporter). In CI (CI set) they run and fail instead.\n`,
  );
  return false;
}

export interface PrometheusStack {
  /** The query API, e.g. http://127.0.0.1:41234 (what METRICS_PROMETHEUS_URL names). */
  url: string;
  /** SIGSTOP/SIGCONT Prometheus: its socket still accepts, nothing answers. */
  pause(): void;
  resume(): void;
  /** Stops Prometheus alone (the exporter keeps running). */
  stopPrometheus(): Promise<void>;
  /** Starts Prometheus again after `stopPrometheus`, on the same port and data, and waits until it is ready. */
  restartPrometheus(): Promise<void>;
  /** Stops both and removes the folder; safe to call twice. */
  stop(): Promise<void>;
}

/** The scrape configuration docs/operations/prometheus.md gives operators, with loopback ports and a 2 s interval. */
export function scrapeConfig(exporterPort: number): string {
  return `global:
  scrape_interval: 2s
  evaluation_interval: 2s
scrape_configs:
  - job_name: libvirt
    static_configs:
      - targets: ['127.0.0.1:${exporterPort}']
`;
}

const stopChild = async (child: ChildProcess | undefined) => {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  await exited;
};

/** Debian's libvirt exporter on `libvirtUri` and a Prometheus scraping it, both on free loopback ports, in a temp folder. */
export async function startPrometheus(libvirtUri = 'qemu:///system'): Promise<PrometheusStack> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  const [exporterPort, port] = [await freePort(), await freePort()];
  writeFileSync(join(dir, 'prometheus.yml'), scrapeConfig(exporterPort));
  const logs: string[] = [];
  const run = (command: string, args: string[]) => {
    const child = spawn(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => logs.push(String(chunk)) > 200 && logs.shift();
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    return child;
  };
  const exporter = run(LIBVIRT_EXPORTER, [`--web.listen-address=127.0.0.1:${exporterPort}`, `--libvirt.uri=${libvirtUri}`]);
  const launch = () =>
    run(PROMETHEUS, [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ]);
  let prometheus = launch();
  const url = `http://127.0.0.1:${port}`;
  const answers = (address: string) => async () => (await fetch(address).catch(() => undefined))?.ok ?? false;
  const ready = () => waitForOrFail(answers(`${url}/-/ready`), Boolean, 30_000, () => `Prometheus did not start:\n${logs.join('')}`);
  const stack: PrometheusStack = {
    url,
    pause: () => prometheus.kill('SIGSTOP'),
    resume: () => prometheus.kill('SIGCONT'),
    stopPrometheus: () => stopChild(prometheus),
    async restartPrometheus() {
      await stopChild(prometheus);
      prometheus = launch();
      await ready();
    },
    async stop() {
      await stopChild(prometheus);
      await stopChild(exporter);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await ready();
    await waitForOrFail(
      answers(`http://127.0.0.1:${exporterPort}/metrics`),
      Boolean,
      30_000,
      () => `the exporter did not start:\n${logs.join('')}`,
    );
  } catch (err) {
    await stack.stop();
    throw err;
  }
  return stack;
}
