import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pwd: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

/** Random URL-safe token of `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function hmacHex(key: string | Buffer, data: string | Buffer): string {
  return createHmac('sha256', key).update(data).digest('hex');
}

/** Constant-time string compare that never throws on a length mismatch. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab); // spend comparable time
    return false;
  }
  return timingSafeEqual(ab, bb);
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

/** Hashes a password with scrypt; the result carries its parameters and salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Dummy hash so an unknown user costs the same time as a wrong password. */
let dummyHash: Promise<string> | undefined;

/** Checks a password against a stored scrypt hash (or a dummy one when none). */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const target = stored ?? (await (dummyHash ??= hashPassword('dummy-password-for-timing')));
  const [scheme, n, r, p, salt, hash] = target.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 });
  return timingSafeEqual(actual, expected) && stored != null;
}

/** The id of an encryption key as sealed values carry it: 8 hex digits of a hash of the key (tells nothing of the key). */
export function encryptionKeyId(key: Buffer): string {
  return createHash('sha256').update('svc-encryption-key-id\n').update(key).digest('hex').slice(0, 8);
}

function keyBytes(keyBase64: string): Buffer {
  const key = Buffer.from(keyBase64, 'base64');
  if (key.length !== 32) throw new Error('encryption key must be 32 bytes');
  return key;
}

/**
 * Application-layer encryption (AES-256-GCM) for secrets that must be read back and for patient data.
 * Format: `v1:<iv>:<tag>:<ciphertext>:<key id>` (base64url; values sealed before key ids existed lack
 * the last part). The key lives in config, apart from the data. Rotation (docs/operations.md): values
 * are sealed with the current key and read with the key their id names, the current or a previous one;
 * a value without an id is tried with each key (GCM's tag tells the right one).
 */
export class Cipher {
  private readonly key: Buffer;
  /** the current key's id: every value sealed now ends with it */
  readonly keyId: string;
  private readonly keys = new Map<string, Buffer>();
  constructor(keyBase64: string, previousBase64: string[] = []) {
    this.key = keyBytes(keyBase64);
    this.keyId = encryptionKeyId(this.key);
    for (const key of [this.key, ...previousBase64.map(keyBytes)]) if (!this.keys.has(encryptionKeyId(key))) this.keys.set(encryptionKeyId(key), key);
  }
  encrypt(plain: string | Buffer): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain), cipher.final()]);
    return `v1:${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${data.toString('base64url')}:${this.keyId}`;
  }
  decryptBuffer(sealed: string): Buffer {
    const [version, iv, tag, data, keyId] = sealed.split(':');
    if (version !== 'v1') throw new Error('unknown ciphertext version');
    if (keyId !== undefined) {
      const key = this.keys.get(keyId);
      if (!key) throw new Error(`sealed with an unknown encryption key (key id ${keyId}): configure that key as SVC_ENCRYPTION_KEY_PREVIOUS`);
      return open(key, iv, tag, data);
    }
    const keys = [...this.keys.values()];
    for (const key of keys.slice(0, -1)) {
      try {
        return open(key, iv, tag, data);
      } catch {
        // not this key: GCM's tag did not match; the next one
      }
    }
    return open(keys[keys.length - 1], iv, tag, data);
  }
  decrypt(sealed: string): string {
    return this.decryptBuffer(sealed).toString('utf8');
  }
  /** True when `sealed` is not sealed with the current key (a previous key, or no key id): `svc keys rotate` re-seals it. */
  isStale(sealed: string): boolean {
    return !sealed.endsWith(`:${this.keyId}`);
  }
  /** The same value sealed with the current key. */
  reseal(sealed: string): string {
    return this.encrypt(this.decryptBuffer(sealed));
  }
  encryptNullable(plain: string | null | undefined): string | null {
    return plain == null || plain === '' ? null : this.encrypt(plain);
  }
  decryptNullable(sealed: string | null | undefined): string | null {
    return sealed == null ? null : this.decrypt(sealed);
  }
}

function open(key: Buffer, iv: string, tag: string, data: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
}
