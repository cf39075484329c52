/**
 * The declarations of a project as values: sources with their clocks, models with their keys,
 * windows, retention, effects and decisions; validated when built (docs/reference/yaml.md).
 */
package dev.streamform.policies.declarations;
