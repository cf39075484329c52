/**
 * Kafka sources and sinks: records decoded and typed by the source's schema (a record that cannot
 * be is quarantined with its reason, never fails the job), the clock gating KafkaIO's watermark,
 * the model's topics (docs/guides/kafka.md).
 */
package dev.streamform.pipelines.kafka;
