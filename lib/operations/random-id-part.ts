/**
 * The 22 random characters of a message id, from a cryptographic source (rsmq used Math.random).
 * Random bytes are drawn in bulk (one randomBytes call per few hundred ids instead of 22
 * randomInt calls per id) and mapped to the 62 symbols by rejection: a byte below 248 (62 * 4)
 * gives symbol `byte % 62`, every symbol from exactly 4 byte values, so the symbols stay uniform;
 * the 8 bytes above are skipped.
 */
import { randomBytes } from "crypto";

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const RANDOM_ID_LENGTH = 22;
/** The largest multiple of 62 that fits in a byte: bytes from here on would favour some symbols. */
const UNBIASED_BELOW = ID_ALPHABET.length * Math.floor(256 / ID_ALPHABET.length);
/** Bytes drawn at once: about 180 ids' worth. */
const POOL_BYTES = 4096;

let pool = Buffer.alloc(0);
let next = 0;

/** Each byte's symbol as a character code, 0 for a byte that is skipped: one lookup per byte. */
const CODE_OF_BYTE = Uint8Array.from({ length: 256 }, (_, byte) => symbolOfByte(byte)?.charCodeAt(0) ?? 0);
/** The part is built here and read out as one latin1 string, instead of 22 concatenations. */
const part = Buffer.alloc(RANDOM_ID_LENGTH);

/** The id symbol a random byte stands for, or undefined for a byte that is skipped. */
export function symbolOfByte(byte: number): string | undefined {
  return byte < UNBIASED_BELOW ? ID_ALPHABET[byte % ID_ALPHABET.length] : undefined;
}

export function randomIdPart(): string {
  let filled = 0;
  while (filled < RANDOM_ID_LENGTH) {
    if (next === pool.length) {
      pool = randomBytes(POOL_BYTES);
      next = 0;
    }
    const code = CODE_OF_BYTE[pool[next++]];
    if (code !== 0) part[filled++] = code;
  }
  return part.toString("latin1");
}
