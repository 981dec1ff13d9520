import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/net-fixtures.js';
import { newAccountKey, startTestRuntime, type TestRuntime } from './helpers/runtime.js';
import { HANG_MS } from './helpers/waits.js';

/*
 * Animated captures (format=mp4, webm, gif; docs/capture.md, "Animated captures") end to end:
 * real Chromium on pages the test serves, real ffmpeg, and the files read back with ffprobe and
 * decoded by ffmpeg. What is asserted is the file (its length, size, codec, frames' colours),
 * never how long the recording took, so a loaded machine only repeats frames.
 */

/** The whole page red, turning blue half a second into its animation, for good. */
const TURN = `<!doctype html><html><head><style>
  html, body { margin: 0; height: 100%; }
  body { background: rgb(255, 0, 0); animation: turn 100ms linear 0.5s forwards; }
  @keyframes turn { to { background: rgb(0, 0, 255); } }
</style></head><body></body></html>`;

/** 6000 px tall: green at the top, blue at the bottom, white between. */
const TALL = `<!doctype html><html><head><style>
  body { margin: 0; background: white; }
  div { height: 2000px; }
</style></head><body>
  <div style="background: rgb(0, 255, 0)"></div><div></div><div style="background: rgb(0, 0, 255)"></div>
</body></html>`;

/** A canvas of noise, what no encoder can shrink; painted once, so a loaded machine draws it in time. */
const NOISE = `<!doctype html><html><body style="margin: 0"><canvas></canvas><script>
  const canvas = document.querySelector('canvas');
  canvas.width = innerWidth;
  canvas.height = innerHeight;
  const context = canvas.getContext('2d');
  const image = context.createImageData(canvas.width, canvas.height);
  for (let i = 0; i < image.data.length; i += 1) image.data[i] = (i & 3) === 3 ? 255 : Math.random() * 256;
  context.putImageData(image, 0, 0);
</script></body></html>`;

function run(program: string, args: readonly string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(program, [...args], { encoding: 'buffer', maxBuffer: 256 << 20 }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`${program}: ${stderr.toString()}`)),
    );
  });
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'webcap-animated-test-'));

function saved(bytes: Buffer, extension: string): string {
  const file = path.join(scratch, `${Math.random().toString(36).slice(2)}.${extension}`);
  fs.writeFileSync(file, bytes);
  return file;
}

interface Probe {
  readonly codec: string;
  readonly width: number;
  readonly height: number;
  readonly frames: number;
  readonly durationSeconds: number;
}

/** What ffprobe reads of the file's first video stream, its frames counted by decoding them. */
async function probe(file: string): Promise<Probe> {
  const json = JSON.parse(
    (
      await run('ffprobe', [
        ...['-v', 'error', '-count_frames', '-select_streams', 'v:0'],
        ...['-show_entries', 'stream=codec_name,width,height,nb_read_frames:format=duration'],
        ...['-of', 'json', file],
      ])
    ).toString(),
  ) as {
    streams: { codec_name: string; width: number; height: number; nb_read_frames: string }[];
    format: { duration: string };
  };
  const [stream] = json.streams;
  if (stream === undefined) throw new Error('no video stream');
  return {
    codec: stream.codec_name,
    width: stream.width,
    height: stream.height,
    frames: Number(stream.nb_read_frames),
    durationSeconds: Number(json.format.duration),
  };
}

/** Each frame's mean colour (the frame scaled to one pixel), decoded by ffmpeg. */
async function frameColours(file: string): Promise<[number, number, number][]> {
  const raw = await run('ffmpeg', [
    ...['-v', 'error', '-i', file, '-vf', 'scale=1:1:flags=area'],
    ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
  ]);
  const colours: [number, number, number][] = [];
  for (let at = 0; at + 3 <= raw.length; at += 3)
    colours.push([raw[at] ?? 0, raw[at + 1] ?? 0, raw[at + 2] ?? 0]);
  return colours;
}

/** Whether a decoded colour is the one painted, within what lossy encoding changes. */
function near(colour: readonly number[], expected: readonly number[]): boolean {
  return colour.every((value, i) => Math.abs(value - (expected[i] ?? 0)) <= 40);
}

const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];

describe('animated captures', () => {
  let site: TestServer;
  let t: TestRuntime;
  let key: string;

  beforeAll(async () => {
    site = await startServer((req, res) => {
      const html = { '/turn': TURN, '/tall': TALL, '/noise': NOISE }[
        new URL(req.url ?? '/', 'http://site').pathname
      ];
      if (html === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    t = await startTestRuntime('sqlite', {
      env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`, FILE_URL_TTL_SECONDS: '3600' },
    });
    key = await newAccountKey(t, 'animated', 10_000);
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const url = (page: string) => `http://127.0.0.1:${site.port}${page}`;
  const get = (query: Record<string, string>) =>
    t.runtime.app.inject({ url: `/v1/capture?${new URLSearchParams(query)}`, headers: { 'x-api-key': key } });
  const hosted = async (link: string) => {
    const { pathname, search } = new URL(link);
    return t.runtime.app.inject({ url: pathname + search });
  };

  describe('happy', () => {
    it('format=mp4 records the page as it animates, for exactly the duration asked (GET)', async () => {
      const res = await get({
        url: url('/turn'),
        format: 'mp4',
        duration: '3',
        viewport_width: '320',
        viewport_height: '240',
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['content-type']).toBe('video/mp4');
      const file = saved(res.rawPayload, 'mp4');
      // 15 frames a second: 45 frames, 3 s within one frame.
      const info = await probe(file);
      expect(info).toMatchObject({ codec: 'h264', width: 320, height: 240, frames: 45 });
      expect(Math.abs(info.durationSeconds - 3)).toBeLessThanOrEqual(1 / 15);
      // The last frame is shot no earlier than 44/15 s into the recording. The page's animation has
      // started by the time its first frame is painted, at the latest during the first shot, so it
      // is blue by then unless that first shot took over 2.3 s. When the first frame is shot has
      // no such bound on a loaded machine, so its colour is not asserted.
      const colours = await frameColours(file);
      expect(colours).toHaveLength(45);
      expect(near(colours.at(-1) ?? [], BLUE), String(colours.at(-1))).toBe(true);
    });

    it('format=webm with scenario=scroll shows the top first and the bottom last (POST); odd sides are made even', async () => {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: '/v1/capture',
        headers: { 'x-api-key': key },
        payload: {
          url: url('/tall'),
          format: 'webm',
          scenario: 'scroll',
          duration: 2,
          viewport_width: 321,
          viewport_height: 240,
          response_type: 'json',
        },
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ success: true, format: 'webm', width: 320, height: 240 });
      expect(body.screenshot_url).toMatch(/\.webm\?/);
      const download = await hosted(body.screenshot_url);
      expect(download.headers['content-type']).toBe('video/webm');
      expect(download.rawPayload.length).toBe(body.size);
      const file = saved(download.rawPayload, 'webm');
      const info = await probe(file);
      expect(info).toMatchObject({ codec: 'vp9', width: 320, height: 240, frames: 30 });
      expect(Math.abs(info.durationSeconds - 2)).toBeLessThanOrEqual(1 / 15);
      const colours = await frameColours(file);
      expect(near(colours[0] ?? [], GREEN), String(colours[0])).toBe(true);
      expect(near(colours.at(-1) ?? [], BLUE), String(colours.at(-1))).toBe(true);
    });

    it('format=gif scrolls at 10 frames a second, base64 in the JSON', async () => {
      const res = await get({
        url: url('/tall'),
        format: 'gif',
        scenario: 'scroll',
        duration: '2',
        viewport_width: '200',
        viewport_height: '150',
        response_type: 'base64',
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ format: 'gif', width: 200, height: 150 });
      const file = saved(Buffer.from(body.base64, 'base64'), 'gif');
      const info = await probe(file);
      expect(info).toMatchObject({ codec: 'gif', width: 200, height: 150, frames: 20 });
      expect(Math.abs(info.durationSeconds - 2)).toBeLessThanOrEqual(1 / 10);
      const colours = await frameColours(file);
      expect(near(colours[0] ?? [], GREEN), String(colours[0])).toBe(true);
      expect(near(colours.at(-1) ?? [], BLUE), String(colours.at(-1))).toBe(true);
    });

    it('an async job (is_async) gives a hosted recording that plays for the duration asked', async () => {
      const accepted = await get({
        url: url('/turn'),
        format: 'mp4',
        duration: '1',
        viewport_width: '320',
        viewport_height: '240',
        is_async: 'true',
      });
      expect(accepted.statusCode, accepted.body).toBe(202);
      const id = accepted.json().job_id as string;
      const deadline = Date.now() + HANG_MS;
      let record = { status: 'queued', result: null as { screenshot_url: string; format: string } | null };
      while (record.status !== 'completed' && record.status !== 'failed' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        record = (await t.runtime.app.inject({ url: `/jobs/${id}`, headers: { 'x-api-key': key } })).json();
      }
      expect(record.status).toBe('completed');
      expect(record.result?.format).toBe('mp4');
      const download = await hosted(record.result?.screenshot_url ?? '');
      expect(download.headers['content-type']).toBe('video/mp4');
      const info = await probe(saved(download.rawPayload, 'mp4'));
      expect(info).toMatchObject({ codec: 'h264', width: 320, height: 240, frames: 15 });
      expect(Math.abs(info.durationSeconds - 1)).toBeLessThanOrEqual(1 / 15);
    });
  });

  describe('happy: the legacy endpoint', () => {
    it('/capture takes the same formats and fields in a JSON body', async () => {
      const res = await t.runtime.app.inject({
        method: 'POST',
        url: '/capture',
        payload: {
          url: url('/tall'),
          access_key: key,
          format: 'gif',
          scenario: 'scroll',
          duration: 1,
          viewport_width: 200,
          viewport_height: 150,
        },
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['content-type']).toBe('image/gif');
      const file = saved(res.rawPayload, 'gif');
      expect(await probe(file)).toMatchObject({ codec: 'gif', width: 200, height: 150, frames: 10 });
      const colours = await frameColours(file);
      expect(near(colours[0] ?? [], GREEN), String(colours[0])).toBe(true);
      expect(near(colours.at(-1) ?? [], BLUE), String(colours.at(-1))).toBe(true);
    });
  });

  describe('cache', () => {
    it('cache=true serves the same recording again, and a different duration is another entry', async () => {
      const query = {
        url: url('/turn'),
        format: 'gif',
        duration: '1',
        viewport_width: '200',
        viewport_height: '150',
        cache: 'true',
      };
      const first = await get(query);
      expect(first.statusCode, first.body.slice(0, 300)).toBe(200);
      expect(first.headers['x-webcap-cache']).toBe('miss');
      const again = await get(query);
      expect(again.headers['x-webcap-cache']).toBe('hit');
      expect(again.headers['content-type']).toBe('image/gif');
      expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
      const longer = await get({ ...query, duration: '2' });
      expect(longer.headers['x-webcap-cache']).toBe('miss');
      expect((await probe(saved(longer.rawPayload, 'gif'))).frames).toBe(20);
    });
  });

  describe('errors', () => {
    it.each([
      [{ format: 'mp4', duration: '0' }, /duration/],
      [{ format: 'mp4', duration: '31' }, /duration/],
      [{ format: 'gif', scenario: 'zoom' }, /scenario/],
      [{ format: 'png', duration: '3' }, /^Bad Request: duration needs format=mp4, webm or gif$/],
      [{ scenario: 'scroll' }, /^Bad Request: scenario needs format=mp4, webm or gif$/],
      [{ format: 'mp4', full_page: 'true' }, /^Bad Request: full_page cannot be combined with format=mp4$/],
      [{ format: 'gif', selector: 'body' }, /^Bad Request: selector cannot be combined with format=gif$/],
      [{ format: 'webm', omit_background: 'true' }, /^Bad Request: omit_background needs a format/],
      [{ format: 'mp4', pdf_landscape: 'true' }, /^Bad Request: pdf_landscape needs format=pdf$/],
      [
        { format: 'mp4', clip_x: '0', clip_y: '0', clip_width: '10', clip_height: '10' },
        /cannot be combined with format=mp4$/,
      ],
      [{ format: 'mov' }, /format/],
    ])('%o is a 400 naming the parameter, not billed', async (query, message) => {
      const before = (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json();
      const res = await get({ url: url('/turn'), ...query });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatch(message);
      const after = (await t.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': key } })).json();
      expect(after).toEqual(before);
    });

    /** One capture in a runtime of its own with `env`, by a key with 10 credits: its answer, and the credits used. */
    async function captureWith(env: Record<string, string>, query: Record<string, string>) {
      const own = await startTestRuntime('sqlite', {
        env: { WEBCAP_ALLOW_PRIVATE: `127.0.0.1/32:${site.port}`, ...env },
      });
      try {
        const ownKey = await newAccountKey(own, 'bounded', 10);
        const res = await own.runtime.app.inject({
          url: `/v1/capture?${new URLSearchParams(query)}`,
          headers: { 'x-api-key': ownKey },
        });
        const usage = await own.runtime.app.inject({ url: '/v1/usage', headers: { 'x-api-key': ownKey } });
        return { res, used: usage.json().total_used as number };
      } finally {
        await own.close();
      }
    }

    it('a recording larger than ANIMATION_MAX_MB is a 400 naming duration, not billed', async () => {
      // One 1280 x 960 frame of noise is over 1 MB as a GIF.
      // The render's limit is the bound's, not the machine's: encoding 1 MB is slow under load.
      const { res, used } = await captureWith(
        { ANIMATION_MAX_MB: '1', RENDER_TIMEOUT_MS: '600000' },
        { url: url('/noise'), format: 'gif', duration: '1', viewport_width: '1280', viewport_height: '960' },
      );
      expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
      expect(res.json().error).toBe(
        'Bad Request: duration gives a recording larger than 1048576 bytes (ANIMATION_MAX_MB): ask for a shorter one or a smaller viewport',
      );
      expect(used).toBe(0);
    });

    it('without ffmpeg an animated capture is a 503 saying so, not billed', async () => {
      const { res, used } = await captureWith(
        { FFMPEG_PATH: '/nonexistent/ffmpeg' },
        { url: url('/turn'), format: 'mp4', duration: '1', viewport_width: '320', viewport_height: '240' },
      );
      expect(res.statusCode, res.body.slice(0, 300)).toBe(503);
      expect(res.json().error).toBe(
        'Service Unavailable: animated captures need ffmpeg, which could not be started',
      );
      expect(used).toBe(0);
    });
  });
});
