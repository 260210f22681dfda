/* SHA-256 of a short message (sha256.c). */
#ifndef SHEAF_SHA256_H
#define SHEAF_SHA256_H

#define SHEAF_SHA256_LENGTH 32

extern void sheaf_sha256(const uint8 *data, size_t len, uint8 digest[SHEAF_SHA256_LENGTH]);

#endif
