package dev.streamform.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamform.core.time.Durations;
import dev.streamform.pipelines.kafka.KafkaConnection;
import dev.streamform.pipelines.kafka.KafkaRefusedException;
import dev.streamform.planner.sinks.JsonRecords;
import dev.streamform.policies.project.NotUtf8;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform consume <topic>}: prints a topic from its beginning, one JSON object per record
 * and line, {@code {"partition":..,"offset":..,"key":<json>,"value":<json>}}, and returns once no
 * record arrived for {@code --max-wait}. Keys and values that are not JSON are printed as strings;
 * one that is not UTF-8 also as {@code key_base64}/{@code value_base64}, its exact bytes.
 */
@Command(
    name = "consume",
    header = "Prints every record of a Kafka topic as JSON lines.",
    mixinStandardHelpOptions = true,
    description = {
      "Prints every record of a Kafka topic from its beginning, one JSON object per line:"
          + " {\"partition\":..,\"offset\":..,\"key\":<json>,\"value\":<json>} (keys and values"
          + " that are not JSON as strings; one that is not UTF-8 also as key_base64 or"
          + " value_base64, its bytes): every record the topic held when it started, then"
          + " those that arrive until none did for --max-wait."
          + " Commits nothing: every call reads the topic from the start."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:read until quiet",
      "1:the topic does not exist, or Kafka cannot be reached or refused the connection, or the"
          + " Kafka client settings have problems, or the records the topic held at the start"
          + " stopped arriving for 60 s",
      "2:bad command line"
    })
final class ConsumeCommand implements Callable<Integer> {

  @Parameters(paramLabel = "<topic>", description = "the topic")
  String topic;

  @Mixin KafkaOptions.Only kafka;

  @Option(
      names = "--max-wait",
      paramLabel = "DURATION",
      defaultValue = "30s",
      description =
          "return once no record arrived for this long, e.g. 500ms, 10s, counted once the"
              + " records the topic held at the start are printed; above 0"
              + " (default: ${DEFAULT-VALUE})")
  String maxWait;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    Duration quiet;
    try {
      quiet = Durations.parse(maxWait);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--max-wait: " + e.getMessage());
    }
    if (quiet.isZero() || quiet.isNegative()) {
      throw new ParameterException(
          spec.commandLine(),
          "--max-wait "
              + maxWait
              + ": give a wait above 0 (e.g. 500ms): consume returns once no record arrived for"
              + " this long");
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Optional<KafkaConnection> connected = kafka.connection(null, null, null, err);
    if (connected.isEmpty()) {
      return 1;
    }
    KafkaConnection connection = connected.get();
    KafkaConsumer<byte[], byte[]> created;
    try {
      created = consumer(connection);
    } catch (KafkaException e) {
      throw KafkaRefusedException.of("create a consumer", connection, e);
    }
    try (KafkaConsumer<byte[], byte[]> consumer = created) {
      return read(consumer, topic, connection.bootstrapServers(), quiet, out, err);
    } catch (KafkaException e) {
      throw KafkaRefusedException.of("read topic " + topic, connection, e);
    }
  }

  /**
   * Prints {@code topic} from {@code consumer}: every record up to the end offsets it had at the
   * start, then until no record arrived for {@code quiet}; 1 when there is no such topic at {@code
   * servers}, or when the records up to those offsets stop arriving for {@link #CATCH_UP_STALL}.
   */
  static int read(
      Consumer<byte[], byte[]> consumer,
      String topic,
      String servers,
      Duration quiet,
      PrintWriter out,
      PrintWriter err) {
    List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(20));
    if (partitions == null || partitions.isEmpty()) {
      err.println(
          "streamform consume: no topic '"
              + topic
              + "' at "
              + servers
              + noTopicFix(consumer, topic));
      return 1;
    }
    List<TopicPartition> assigned = new ArrayList<>();
    partitions.forEach(p -> assigned.add(new TopicPartition(topic, p.partition())));
    consumer.assign(assigned);
    consumer.seekToBeginning(assigned);
    // what the topic holds now is read before the quiet time counts: connecting and the first
    // fetch (a TLS handshake, a remote broker) are no quiet time
    Map<TopicPartition, Long> end = consumer.endOffsets(assigned, Duration.ofSeconds(20));
    long read = 0;
    long lastProgress = System.nanoTime();
    while (!reached(consumer, end)) {
      if (System.nanoTime() - lastProgress > CATCH_UP_STALL.toNanos()) {
        out.flush();
        err.println(
            "streamform consume: read "
                + read
                + " records of "
                + topic
                + " at "
                + servers
                + ", and none of the rest it held at the start arrived for "
                + CATCH_UP_STALL.toSeconds()
                + " s: is the broker still running?");
        return 1;
      }
      var records = consumer.poll(Duration.ofMillis(500));
      for (ConsumerRecord<byte[], byte[]> r : records) {
        out.println(line(r));
      }
      if (!records.isEmpty()) {
        out.flush();
        read += records.count();
        lastProgress = System.nanoTime();
      }
    }
    long lastArrival = System.nanoTime();
    while (System.nanoTime() - lastArrival < quiet.toNanos()) {
      long leftMillis = (quiet.toNanos() - (System.nanoTime() - lastArrival)) / 1_000_000;
      var records = consumer.poll(Duration.ofMillis(Math.max(1, Math.min(500, leftMillis))));
      for (ConsumerRecord<byte[], byte[]> r : records) {
        out.println(line(r));
      }
      if (!records.isEmpty()) {
        out.flush();
        lastArrival = System.nanoTime();
      }
    }
    out.flush();
    return 0;
  }

  /** How long reading up to the end offsets taken at the start may go without a record. */
  static final Duration CATCH_UP_STALL = Duration.ofSeconds(60);

  /** True when every partition's position is at or past its offset in {@code end}. */
  private static boolean reached(Consumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (e.getValue() != null && consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** What is there instead of {@code topic}, and how a topic comes to be. */
  private static String noTopicFix(Consumer<byte[], byte[]> consumer, String topic) {
    List<String> there;
    try {
      there =
          consumer.listTopics(Duration.ofSeconds(20)).keySet().stream()
              .filter(t -> !t.startsWith("__")) // Kafka's own (__consumer_offsets, ...)
              .sorted()
              .toList();
    } catch (KafkaException e) {
      there = null; // the topic's absence is the news; the listing is a courtesy
    }
    String close =
        there == null
            ? ""
            : there.stream()
                .filter(t -> Streamform.edits(t, topic) <= 2)
                .sorted(
                    java.util.Comparator.comparingInt((String t) -> Streamform.edits(t, topic))
                        .thenComparing(t -> t))
                .findFirst()
                .map(t -> " (did you mean '" + t + "'?)")
                .orElse("");
    String listing =
        there == null
            ? ""
            : there.isEmpty()
                ? " — there are no topics there;"
                : " — the topics there are "
                    + String.join(", ", there.subList(0, Math.min(20, there.size())))
                    + (there.size() > 20 ? ", ... (" + there.size() + " in all)" : "")
                    + ";";
    return close
        + (listing.isEmpty() ? " —" : listing)
        + " a model's output topics are created by streamform run and a source's by streamform"
        + " produce; any other is created by whoever runs the cluster (kafka-topics.sh --create"
        + " --topic "
        + topic
        + ")";
  }

  static String line(ConsumerRecord<byte[], byte[]> r) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("partition", r.partition());
    o.put("offset", r.offset());
    o.set("key", JsonRecords.parseOrText(r.key()));
    o.set("value", JsonRecords.parseOrText(r.value()));
    // bytes that are not UTF-8 read as U+FFFD above: their exact bytes too, so none is lost
    if (r.key() != null && NotUtf8.firstMalformedByte(r.key()) >= 0) {
      o.put("key_base64", java.util.Base64.getEncoder().encodeToString(r.key()));
    }
    if (r.value() != null && NotUtf8.firstMalformedByte(r.value()) >= 0) {
      o.put("value_base64", java.util.Base64.getEncoder().encodeToString(r.value()));
    }
    return o.toString();
  }

  static KafkaConsumer<byte[], byte[]> consumer(KafkaConnection connection) {
    Properties p = new Properties();
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
    p.putAll(connection.clientConfig());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
