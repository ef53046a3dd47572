import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server-process';

/** Debian's nginx (`apt-get install nginx-light`). */
export const NGINX = '/usr/sbin/nginx';
export const DEPLOY = join(__dirname, '../../deploy');

/** nginx tests run where nginx is installed, and always in CI (`CI` set), where a missing nginx is a failure. */
export function nginxTestsEnabled(): boolean {
  if (existsSync(NGINX) || process.env.CI) return true;
  process.stderr.write(
    `Skipping nginx tests: ${NGINX} is missing (apt-get install nginx-light). In CI (CI set) they run and fail instead.\n`,
  );
  return false;
}

export interface NginxSite {
  http: number;
  https: number;
  /** The self-signed certificate (for 127.0.0.1) the TLS server presents: the client's CA. */
  ca: Buffer;
  /** `nginx -t` on the site: its exit status and output. */
  check(): { status: number; output: string };
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One of deploy/'s server configurations as nginx would load it (the official image's layout: the
 * site in conf.d, hosting-api-locations.conf beside nginx.conf), in a directory of its own, with
 * loopback ports instead of 80 and 443, the upstream replicas replaced by `upstreamPorts` (api-1 by the first, and so on), and a
 * self-signed certificate.
 */
export async function nginxSite(file: 'nginx.conf' | 'nginx-tls.conf', upstreamPorts: number | number[]): Promise<NginxSite> {
  const ports = typeof upstreamPorts === 'number' ? [upstreamPorts] : upstreamPorts;
  const dir = mkdtempSync(join(tmpdir(), 'nginx-site-'));
  const [http, https] = [await freePort(), await freePort()];
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'privkey.pem'), '-out', join(dir, 'fullchain.pem')],
    ],
    { stdio: 'ignore' },
  );
  const site = readFileSync(join(DEPLOY, file), 'utf8')
    .replace(/server api-(\d):3000/g, (_, n: string) => `server 127.0.0.1:${ports[(Number(n) - 1) % ports.length]}`)
    .replace(/listen 80;/g, `listen 127.0.0.1:${http};`)
    .replace(/listen 443 ssl;/g, `listen 127.0.0.1:${https} ssl;`)
    .replace(/\/etc\/nginx\/tls/g, dir)
    .replace(/\/var\/www\/acme/g, dir);
  writeFileSync(join(dir, 'site.conf'), site);
  writeFileSync(join(dir, 'hosting-api-locations.conf'), readFileSync(join(DEPLOY, 'nginx-locations.conf')));
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n` +
      ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};\n`).join('') +
      `  include site.conf;\n}\n`,
  );
  let child: ReturnType<typeof spawn> | null = null;
  return {
    http,
    https,
    ca: readFileSync(join(dir, 'fullchain.pem')),
    check() {
      // nginx reports on stderr, success included.
      const result = spawnSync(NGINX, ['-t', '-p', dir, '-c', conf], { encoding: 'utf8' });
      return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
    },
    async start() {
      child = spawn(NGINX, ['-p', dir, '-c', conf, '-g', 'daemon off; master_process off;'], { stdio: 'ignore' });
      const port = file === 'nginx.conf' ? http : https;
      for (let i = 0; i < 200 && !(await listening(port)); i++) await new Promise((r) => setTimeout(r, 25));
      if (!(await listening(port))) throw new Error(`nginx did not start: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
    },
    async stop() {
      if (child && child.exitCode === null) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
