package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code consume}: a topic that is not there is said with what is there and how a topic comes to
 * be; a truststore that is not there is refused before anything connects; its help says which Kafka
 * settings it reads.
 */
class ConsumeCommandTest {
  @TempDir Path dir;

  /**
   * A key or value that is not UTF-8 is printed as text with U+FFFD in place of its bad bytes and,
   * beside it, its bytes in base64: the bytes were lost, and a real U+FFFD looked the same (found
   * by a read-only audit of bad records on Kafka).
   */
  @Test
  void aRecordThatIsNotUtf8KeepsItsBytesInBase64() throws Exception {
    byte[] value = {'{', '"', 'a', '"', ':', '"', 'A', (byte) 0xFF, 1, (byte) 0xFE, '"', '}'};
    byte[] key = {(byte) 0xFF, 0};
    com.fasterxml.jackson.databind.JsonNode line =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(
                ConsumeCommand.line(
                    new org.apache.kafka.clients.consumer.ConsumerRecord<>(
                        "t", 0, 1L, key, value)));
    assertEquals(
        java.util.Base64.getEncoder().encodeToString(value), line.path("value_base64").asText());
    assertEquals(
        java.util.Base64.getEncoder().encodeToString(key), line.path("key_base64").asText());
    byte[] good = "{\"a\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    com.fasterxml.jackson.databind.JsonNode plain =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(
                ConsumeCommand.line(
                    new org.apache.kafka.clients.consumer.ConsumerRecord<>(
                        "t", 0, 2L, good, good)));
    assertEquals(false, plain.has("value_base64"), plain.toString());
    assertEquals(false, plain.has("key_base64"), plain.toString());
  }

  @Test
  void aTopicThatDoesNotExistNamesTheTopicsThereAndHowOneIsCreated() {
    MockConsumer<byte[], byte[]> consumer = new MockConsumer<>(OffsetResetStrategy.EARLIEST);
    Node node = new Node(0, "127.0.0.1", 9094);
    for (String topic : List.of("customer_metrics", "orders", "__consumer_offsets")) {
      consumer.updatePartitions(
          topic, List.of(new PartitionInfo(topic, 0, node, new Node[] {node}, new Node[] {node})));
    }
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        ConsumeCommand.read(
            consumer,
            "order",
            "127.0.0.1:9094",
            Duration.ofMillis(10),
            new PrintWriter(out),
            new PrintWriter(err, true));
    assertEquals(1, status);
    assertThat(
        err.toString(),
        containsString(
            "streamform consume: no topic 'order' at 127.0.0.1:9094 (did you mean 'orders'?)"
                + " — the topics there are customer_metrics, orders;"));
    assertThat(err.toString(), containsString("streamform run"));
  }

  @Test
  void aTruststoreThatIsNotThereIsRefusedBeforeConnecting() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("deploy.properties"),
            "security.protocol=SSL\nssl.truststore.location=/nope/ca.pem\n");
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(new StringWriter()),
            new PrintWriter(err),
            "consume",
            "orders",
            "--kafka-properties",
            file.toString(),
            "--bootstrap-servers",
            "127.0.0.1:1",
            "--max-wait",
            "1s");
    assertEquals(1, status, err.toString());
    assertThat(
        err.toString(),
        containsString(
            file
                + ":2: key 'ssl.truststore.location': names /nope/ca.pem, which does not"
                + " exist"));
  }

  @Test
  void theHelpOfProduceAndConsumeNamesOnlyTheSettingsTheyRead() {
    for (String command : List.of("produce", "consume")) {
      StringWriter out = new StringWriter();
      Streamform.run(new PrintWriter(out), new PrintWriter(new StringWriter()), command, "--help");
      String help = out.toString().replaceAll("\\s+", " ");
      assertThat(command, help, org.hamcrest.Matchers.not(containsString("profile's")));
    }
    StringWriter out = new StringWriter();
    Streamform.run(new PrintWriter(out), new PrintWriter(new StringWriter()), "consume", "--help");
    assertThat(
        out.toString().replaceAll("\\s+", " "),
        containsString("1 the topic does not exist, or Kafka cannot be reached or refused"));
  }
}
