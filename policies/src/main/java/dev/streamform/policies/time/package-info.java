/**
 * Timestamps as the declarations and fixtures write them: RFC 3339 instants in UTC or epoch
 * milliseconds; a bare time of day is refused.
 */
package dev.streamform.policies.time;
