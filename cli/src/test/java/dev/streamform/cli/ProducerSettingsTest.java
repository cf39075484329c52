package dev.streamform.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.pipelines.kafka.KafkaConnection;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/**
 * {@code produce}'s producer keeps one request in flight: with more, a request the broker refused
 * before it opened a new partition is retried behind a later one it accepted, and the idempotent
 * producer then gets "out of order sequence" until the record expires (KAFKA-15591; a CI run's
 * broker log showed it on a topic produce had just created).
 */
class ProducerSettingsTest {

  @Test
  void oneRequestInFlightSoARetryCannotFallBehindALaterRequest() {
    Properties p = ProduceCommand.producerSettings(KafkaConnection.plaintext("127.0.0.1:1"));
    assertEquals(1, p.get(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION));
    assertEquals(true, p.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG));
    assertEquals("all", p.get(ProducerConfig.ACKS_CONFIG));
  }
}
