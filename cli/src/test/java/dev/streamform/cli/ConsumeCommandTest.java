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

  /**
   * A consumer whose first polls return nothing while it connects and fetches (as a TLS handshake
   * or a remote broker makes them), each taking {@code pollMillis}, then the topic's records.
   */
  private static MockConsumer<byte[], byte[]> slowToStart(int emptyPolls, long pollMillis) {
    MockConsumer<byte[], byte[]> consumer =
        new MockConsumer<>(OffsetResetStrategy.EARLIEST) {
          private int polls;

          @Override
          public synchronized org.apache.kafka.clients.consumer.ConsumerRecords<byte[], byte[]>
              poll(Duration timeout) {
            try {
              Thread.sleep(pollMillis);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            if (polls++ < emptyPolls) {
              return org.apache.kafka.clients.consumer.ConsumerRecords.empty();
            }
            return super.poll(timeout);
          }
        };
    Node node = new Node(0, "127.0.0.1", 9094);
    consumer.updatePartitions(
        "orders",
        List.of(new PartitionInfo("orders", 0, node, new Node[] {node}, new Node[] {node})));
    org.apache.kafka.common.TopicPartition p0 =
        new org.apache.kafka.common.TopicPartition("orders", 0);
    consumer.updateBeginningOffsets(java.util.Map.of(p0, 0L));
    consumer.updateEndOffsets(java.util.Map.of(p0, 3L));
    consumer.schedulePollTask(
        () -> {
          for (long offset = 0; offset < 3; offset++) {
            consumer.addRecord(
                new org.apache.kafka.clients.consumer.ConsumerRecord<>(
                    "orders",
                    0,
                    offset,
                    ("" + offset).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
          }
        });
    return consumer;
  }

  /**
   * The quiet time starts once the records the topic held when consume started are read: before,
   * connecting and the first fetch counted as quiet, so a short --max-wait printed nothing of a
   * topic that had records and exited 0 (found by a read-only review of consume).
   */
  @Test
  void theRecordsTheTopicHeldAtTheStartArePrintedHoweverShortTheWait() {
    MockConsumer<byte[], byte[]> consumer = slowToStart(3, 50);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    int status =
        ConsumeCommand.read(
            consumer,
            "orders",
            "127.0.0.1:9094",
            Duration.ofMillis(1),
            new PrintWriter(out),
            new PrintWriter(err, true));

    assertEquals(0, status, err.toString());
    assertEquals(3, out.toString().lines().count(), out.toString());
  }

  @Test
  void aZeroMaxWaitIsRefused() {
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(new StringWriter()),
            new PrintWriter(err),
            "consume",
            "orders",
            "--bootstrap-servers",
            "127.0.0.1:1",
            "--max-wait",
            "0s");
    assertEquals(2, status, err.toString());
    assertThat(
        err.toString(),
        containsString(
            "--max-wait 0s: give a wait above 0 (e.g. 500ms): consume returns once no record"
                + " arrived for this long"));
  }
}
