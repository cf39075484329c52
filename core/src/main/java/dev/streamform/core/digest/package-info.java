/**
 * Revision identity: the canonical encoding and SHA-256 hashes that name a window, a projection and
 * a revision's values the same on every runner (docs/semantics.md §6, test vectors in
 * docs/reference/revision-identity.md). JDK only.
 */
package dev.streamform.core.digest;
