import { Writable } from 'node:stream';
import { DataSource } from 'typeorm';
import { PROBE_TABLE_SQL, ProbeModule } from '../support/probe.module';
import { createTestApp, TestApp } from '../support/test-app';

describe('Structured logs', () => {
  const lines: Array<Record<string, any>> = [];
  let t: TestApp;

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    t = await createTestApp({ imports: [ProbeModule], env: { LOG_LEVEL: 'info' }, logDestination: destination });
    await t.app.get(DataSource).query(PROBE_TABLE_SQL);
  });
  afterAll(() => t.close());

  it('writes JSON lines that carry the request id and never a credential', async () => {
    const secret = 'sk_live_ThisMustNeverAppearInLogs0123456789';
    const ok = await t.http.get('/v1/probes').set('Authorization', `Bearer ${secret}`).set('Cookie', 'session=abc').expect(200);
    const failed = await t.http.get('/v1/probes/boom').set('Authorization', `Bearer ${secret}`).expect(500);
    await new Promise((resolve) => setImmediate(resolve));

    const raw = lines.map((line) => JSON.stringify(line)).join('\n');
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain('session=abc');

    const okLines = lines.filter((line) => line.request_id === ok.headers['request-id']);
    expect(okLines).toEqual([
      expect.objectContaining({
        level: 'info',
        req: expect.objectContaining({ method: 'GET', url: '/v1/probes' }),
        res: { status: 200 },
      }),
    ]);
    const failedLines = lines.filter((line) => line.request_id === failed.headers['request-id']);
    expect(failedLines.length).toBeGreaterThanOrEqual(2);
    expect(failedLines).toContainEqual(expect.objectContaining({ level: 'error', msg: expect.stringContaining('leaked?') }));
    expect(failedLines).toContainEqual(expect.objectContaining({ level: 'error', res: { status: 500 } }));
    for (const line of lines.filter((line) => line.req)) expect(line.request_id).toMatch(/^req_/);
  });
});
