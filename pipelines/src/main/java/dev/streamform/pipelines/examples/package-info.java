/**
 * Pipelines written in plain Java with Streamform's transforms, each with a {@code main()}: the
 * examples a Beam author copies (hourly revenue, receipt risk scoring).
 */
package dev.streamform.pipelines.examples;
