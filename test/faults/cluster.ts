import { execFileSync } from 'node:child_process';
import { Client } from 'pg';

export const VERSION = process.env.FAULTS_PG_VERSION ?? '15';
export const CLUSTER = process.env.FAULTS_PG_CLUSTER ?? 'faults';
export const PORT = process.env.FAULTS_PG_PORT ?? '5439';
export const FAULTS_URL = `postgres://postgres@127.0.0.1:${PORT}/faults`;

const ctl = (action: string, ...args: string[]) =>
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', VERSION, CLUSTER, action, ...args], { stdio: 'pipe' });

export const stopCluster = () => ctl('stop', '-m', 'immediate');
const running = () => {
  try {
    ctl('status');
    return true;
  } catch {
    return false;
  }
};

export const startCluster = () => {
  if (!running()) ctl('start');
};

/** An admin session on the faults cluster, for locks and killing backends. */
export async function admin(): Promise<Client> {
  const client = new Client({ connectionString: FAULTS_URL, application_name: 'faults-admin' });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
