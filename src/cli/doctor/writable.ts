import fs from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from './check.js';

/** The nearest directory at or above `target` that exists (the root at the latest). */
async function nearestExisting(target: string): Promise<string> {
  let dir = path.resolve(target);
  while (true) {
    try {
      await fs.stat(dir);
      return dir;
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return dir;
      dir = parent;
    }
  }
}

/** Null when `target` exists and this user may write in it, or it does not exist and can be created; else why not. */
export async function writableOrCreatable(target: string): Promise<string | null> {
  const existing = await nearestExisting(target);
  try {
    await fs.access(existing, fs.constants.W_OK);
    return null;
  } catch (error) {
    const code = errorCode(error) ?? 'not writable';
    return existing === path.resolve(target)
      ? `${existing} is not writable by this user (${code})`
      : `${target} does not exist and ${existing} is not writable by this user (${code})`;
  }
}
