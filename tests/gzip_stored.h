/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gzip files made without zlib, for the tests of the reader's gzip path
 * (tests/unit/test_mm.c, tests/fuzz/fuzz_mm.c): one member whose deflate
 * data are "stored" (uncompressed) blocks of at most 65535 bytes. Every text
 * byte then sits at a known offset of the file, so a test can cut or corrupt
 * the file at a chosen line, and a build without zlib can still make the
 * files it must refuse. */
#ifndef CGM_TEST_GZIP_STORED_H
#define CGM_TEST_GZIP_STORED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The gzip trailer's CRC-32 (IEEE 802.3, bit by bit: tests only). */
static inline uint32_t gzip_stored_crc32(const unsigned char *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t k = 0; k < n; k++) {
    c ^= p[k];
    for (int b = 0; b < 8; b++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

/* Bytes gzip_stored writes for len bytes of text, at most. */
static inline size_t gzip_stored_bound(size_t len) {
  return len + 5 * (len / 65535 + 1) + 18;
}

/* Writes the member holding text[0, len) to out (gzip_stored_bound(len)
 * bytes) and returns its size: a 10-byte header, 5 bytes before each block,
 * the CRC-32 and the length of the text. */
static inline size_t gzip_stored(unsigned char *out, const void *text, size_t len) {
  static const unsigned char head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  const unsigned char *t = (const unsigned char *)text;
  unsigned char *o = out;
  memcpy(o, head, 10);
  o += 10;
  size_t off = 0;
  do {
    size_t n = len - off > 65535 ? 65535 : len - off;
    *o++ = off + n == len; /* BFINAL on the last block, BTYPE 00 (stored) */
    *o++ = (unsigned char)(n & 0xff);
    *o++ = (unsigned char)(n >> 8);
    *o++ = (unsigned char)(~n & 0xff);
    *o++ = (unsigned char)((~n >> 8) & 0xff);
    memcpy(o, t + off, n);
    o += n;
    off += n;
  } while (off < len);
  uint32_t crc = gzip_stored_crc32(t, len), isize = (uint32_t)len;
  for (int b = 0; b < 4; b++) *o++ = (unsigned char)(crc >> (8 * b));
  for (int b = 0; b < 4; b++) *o++ = (unsigned char)(isize >> (8 * b));
  return (size_t)(o - out);
}

#endif
