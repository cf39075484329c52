/**
 * Digests of declarations: the canonical form of a source or model and its SHA-256, which plans
 * compare to tell a changed declaration from an unchanged one.
 */
package dev.streamform.policies.digest;
