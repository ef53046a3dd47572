import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { requestLogging } from './request-logging';

type Line = Record<string, any>;

/** An app with the request logger at `level`; returns the log lines its requests produced. */
async function linesFor(
  level: string,
  calls: (app: express.Express) => Promise<unknown>,
  options: { oneLine?: boolean } = {},
): Promise<Line[]> {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      cb();
    },
  });
  const logger = pino({ level, base: { service: 'test' } }, sink);
  const app = express();
  let n = 0;
  app.use((req, _res, next) => {
    (req as unknown as { id: string }).id = `req-${++n}`;
    next();
  });
  app.use(requestLogging(logger, options));
  app.get('/ok', (_req, res) => void res.json({ ok: true }));
  app.get('/missing', (_req, res) => void res.status(404).json({ code: 'not_found' }));
  app.put('/blobs/uploads/:token', (_req, res) => void res.status(204).end());
  app.get('/broken', (_req, res) => void res.status(500).json({ code: 'internal_error' }));
  await calls(app);
  await new Promise((r) => setImmediate(r));
  return lines;
}

const requests = async (app: express.Express) => {
  await request(app).get('/ok?secret=1').set('Authorization', 'Bearer hpk_secret');
  await request(app).get('/missing?page=2');
  await request(app).get('/broken');
};

/** Everything but the clock. */
const stable = ({ time: _time, responseTime, err, ...rest }: Line): Line => ({
  ...rest,
  responseTime: typeof responseTime,
  err: err && { type: err.type, message: err.message },
});

describe('request logging', () => {
  it('at info, logs every request as pino-http does', async () => {
    const lines = await linesFor('info', requests);
    expect(lines.map(stable)).toEqual([
      {
        level: 30,
        service: 'test',
        req: { id: 'req-1', method: 'GET', url: '/ok' },
        res: { statusCode: 200 },
        responseTime: 'number',
        msg: 'request completed',
      },
      {
        level: 40,
        service: 'test',
        req: { id: 'req-2', method: 'GET', url: '/missing' },
        res: { statusCode: 404 },
        responseTime: 'number',
        msg: 'request completed',
      },
      {
        level: 50,
        service: 'test',
        req: { id: 'req-3', method: 'GET', url: '/broken' },
        res: { statusCode: 500 },
        err: { type: 'Error', message: 'failed with status code 500' },
        responseTime: 'number',
        msg: 'request errored',
      },
    ]);
  });

  it('at warn, writes the same lines for the requests whose level is on, and nothing for the others', async () => {
    const atInfo = (await linesFor('info', requests)).map(stable);
    const atWarn = (await linesFor('warn', requests)).map(stable);
    expect(atWarn).toEqual(atInfo.filter((line) => line.level >= 40));
    // the same key order as pino-http's lines, too
    expect(Object.keys((await linesFor('warn', requests))[0])).toEqual(['level', 'time', 'service', 'req', 'res', 'responseTime', 'msg']);
  });

  it('at error, only 5xx; at silent, nothing', async () => {
    expect((await linesFor('error', requests)).map((l) => l.res.statusCode)).toEqual([500]);
    expect(await linesFor('silent', requests)).toEqual([]);
  });

  it('never writes the query string or the headers', async () => {
    const lines = await linesFor('trace', requests);
    const text = JSON.stringify(lines);
    expect(text).not.toContain('secret');
    expect(text).not.toContain('page=2');
  });

  it('redacts the signed token of blob upload and download URLs (issue 17, finding 5)', async () => {
    const token = 'eyJrIjoiYWNjb3VudC9maWxlIn0.c2lnbmF0dXJl';
    const lines = await linesFor('info', async (app) => {
      await request(app).put(`/blobs/uploads/${token}`);
      await request(app).get(`/BLOBS/downloads/${token}?x=1`);
    });
    expect(lines.map((l) => l.req.url)).toEqual(['/blobs/uploads/[redacted]', '/BLOBS/downloads/[redacted]']);
    expect(JSON.stringify(lines)).not.toContain(token);
  });

  it('on a terminal (oneLine), writes one message a request: method, path without query, status, duration, request id', async () => {
    const lines = await linesFor('info', requests, { oneLine: true });
    expect(lines.map(({ level, msg, ...rest }) => ({ level, msg, keys: Object.keys(rest) }))).toEqual([
      { level: 30, msg: expect.stringMatching(/^GET \/ok 200 \d+(\.\d)? ms {2}req-1$/), keys: ['time', 'service'] },
      { level: 40, msg: expect.stringMatching(/^GET \/missing 404 \d+(\.\d)? ms {2}req-2$/), keys: ['time', 'service'] },
      { level: 50, msg: expect.stringMatching(/^GET \/broken 500 \d+(\.\d)? ms {2}req-3$/), keys: ['time', 'service'] },
    ]);
    expect((await linesFor('warn', requests, { oneLine: true })).map((l) => l.level)).toEqual([40, 50]);
    expect(await linesFor('silent', requests, { oneLine: true })).toEqual([]);
    const blob = await linesFor('info', (app) => request(app).put('/blobs/uploads/secret-token'), { oneLine: true });
    expect(blob[0].msg).toMatch(/^PUT \/blobs\/uploads\/\[redacted\] 204 /);
  });
});
