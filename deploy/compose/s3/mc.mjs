#!/usr/bin/env node
// The MinIO client commands compose.yaml runs, against s3rver: `mc alias set NAME URL USER SECRET`,
// `mc ready NAME` (exit 0 when the store answers) and `mc mb [--ignore-existing] NAME/BUCKET`.
// s3rver takes unsigned requests, so the credentials are kept but not used. The alias `local` is
// this container's own server, as in MinIO's image.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const file = path.join(os.homedir() === '/' ? os.tmpdir() : os.homedir(), '.mc-aliases.json');
const aliases = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
aliases.local ??= { url: 'http://127.0.0.1:9000' };
const [command, ...args] = process.argv.slice(2);

function fail(message) {
  console.error(`mc: ${message}`);
  process.exit(1);
}

function urlOf(name) {
  const alias = aliases[name];
  if (alias === undefined) fail(`no alias ${name}`);
  return alias.url.replace(/\/+$/, '');
}

const signal = () => AbortSignal.timeout(5000);
if (command === 'alias' && args[0] === 'set' && args.length === 5) {
  const [, name, url, accessKey, secretKey] = args;
  aliases[name] = { url, accessKey, secretKey };
  fs.writeFileSync(file, JSON.stringify(aliases), { mode: 0o600 });
  console.log(`Added \`${name}\` successfully.`);
} else if (command === 'ready' && args.length === 1) {
  const response = await fetch(`${urlOf(args[0])}/`, { signal: signal() }).catch(() => null);
  if (response === null) fail(`${args[0]} is not ready`);
  console.log(`The cluster '${args[0]}' is ready`);
} else if (command === 'mb') {
  const ignoreExisting = args.includes('--ignore-existing');
  const target = args.filter((arg) => arg !== '--ignore-existing');
  const [name, bucket] = target.length === 1 ? target[0].split('/') : [];
  if (name === undefined || !bucket) fail('usage: mc mb [--ignore-existing] ALIAS/BUCKET');
  const response = await fetch(`${urlOf(name)}/${bucket}`, { method: 'PUT', signal: signal() });
  if (response.status === 409 && ignoreExisting) console.log(`Bucket \`${name}/${bucket}\` already exists.`);
  else if (response.ok) console.log(`Bucket created successfully \`${name}/${bucket}\`.`);
  else fail(`${name}/${bucket}: ${response.status} ${await response.text()}`);
} else {
  fail(`this stand-in knows alias set, ready and mb, not: ${process.argv.slice(2).join(' ')}`);
}
