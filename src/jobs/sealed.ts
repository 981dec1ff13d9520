import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Encrypts what a job stores (its call's parameters may hold a caller's S3 secret key or proxy
 * password) with AES-256-GCM, under a key derived from the service's secret; any process holding
 * the same secret opens it. Also hashes submissions for idempotency with a separate derived key,
 * so that equal parameters can be recognised without being readable.
 */
export class Sealer {
  private readonly key: Buffer;
  private readonly hashKey: Buffer;

  /** `purpose` keeps each use's key apart: a value sealed for one cannot be opened as another's. */
  constructor(secret: string, purpose = 'job parameters') {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'webcap', purpose, 32));
    this.hashKey = Buffer.from(hkdfSync('sha256', secret, 'webcap', 'job parameter hash', 32));
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url, of the value's JSON. */
  seal(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url'));
    return [VERSION, ...parts].join('.');
  }

  /** The value sealed; throws when the text was not sealed with this secret or was altered. */
  open<T>(text: string): T {
    const [version, iv, tag, sealed] = text.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || sealed === undefined) {
      throw new Error('not a sealed value');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  }

  /** Keyed hash of a canonical text (hex). */
  hash(text: string): string {
    return createHmac('sha256', this.hashKey).update(text).digest('hex');
  }
}
