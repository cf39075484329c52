/**
 * Plans of a model: the manifest ({@code inspect-plan}), the time policy with its digest, the state
 * fingerprint, and the comparison of two plans ({@code plan --against}; docs/semantics.md §9).
 */
package dev.streamform.policies.plan;
