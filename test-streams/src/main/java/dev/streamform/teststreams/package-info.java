/**
 * Fixtures from Java: {@link dev.streamform.teststreams.StreamformFixtures} runs a fixture file
 * against a declared model or a Beam author's own transform and judges the outcome.
 */
package dev.streamform.teststreams;
