/**
 * The Redis Cluster hash slot of a key or shard channel, as the server computes it: CRC16 (XMODEM)
 * of the whole name, or of its first non-empty `{hash tag}`, modulo 16384.
 *
 * Not `cluster-key-slot` (node-redis v4's own): after an empty first tag it goes on to the next
 * `}` and hashes what lies before it, where Redis hashes the whole name (`{}{x}`: slot 3257 there,
 * 11068 on the server). That package is no longer maintained, so the few lines stay here, checked
 * against CLUSTER KEYSLOT by test/transports/cluster/harness.test.ts.
 */

export const SLOT_COUNT = 16384;

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[byte] = crc & 0xffff;
  }
  return table;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff];
  return crc;
}

export function hashSlot(key: string | Buffer): number {
  const bytes = typeof key === "string" ? Buffer.from(key) : key;
  const open = bytes.indexOf(0x7b); // "{"
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1); // "}"
    // "{}" is not a hash tag: the whole key is hashed.
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % SLOT_COUNT;
  }
  return crc16(bytes) % SLOT_COUNT;
}
