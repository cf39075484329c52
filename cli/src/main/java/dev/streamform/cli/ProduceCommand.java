package dev.streamform.cli;

import dev.streamform.core.text.Counts;
import dev.streamform.pipelines.kafka.KafkaConnection;
import dev.streamform.pipelines.kafka.KafkaRefusedException;
import dev.streamform.pipelines.kafka.KafkaTopics;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.JsonRecords;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Problem;
import dev.streamform.policies.project.Project;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform produce <project> <fixture.yml>}: writes a fixture's {@code given:} items to
 * its model's Kafka source topic, in order — events as JSON records keyed by the model's key
 * columns, watermark items as punctuation records {@code {"__watermark": "<instant>"}}.
 */
@Command(
    name = "produce",
    header = "Writes a fixture's events to its source's Kafka topic.",
    mixinStandardHelpOptions = true,
    description = {
      "Writes a fixture's given: items, in order, to the Kafka topic of its model's source: each"
          + " event as a JSON record keyed by the model's key columns ({\"customer_id\":42}), each"
          + " watermark item as a punctuation record {\"__watermark\": \"<instant>\"} to every"
          + " partition (or to the one it names). Each event goes to its fixture partition"
          + " (partition: N, default 0), so the topic holds the same per-partition logs as the"
          + " fixture and a model run on it gives the fixture's answer. Creates the topic when"
          + " missing."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:every item was written",
      "1:the project or fixture has problems, or the broker refused",
      "2:bad command line"
    })
final class ProduceCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<project>", description = "the project folder")
  Path project;

  @Parameters(index = "1", paramLabel = "<fixture.yml>", description = "the fixture file")
  Path fixtureFile;

  @Mixin KafkaOptions.OnSource kafka;

  @Option(
      names = "--partitions",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "partitions of the topic when it has to be created (default: the source's declared"
              + " partitions:, else ${DEFAULT-VALUE}); a count other than the declared one is"
              + " refused")
  int partitions;

  @Option(
      names = "--spread-by-key",
      description =
          "send each event to the partition Kafka's partitioner picks for its key instead of its"
              + " fixture partition. What it changes: each partition has its own clock"
              + " (docs/semantics.md §2), so which events are late and when windows fire can differ"
              + " from streamform test of the same fixture; each key's events still keep their"
              + " order.")
  boolean spreadByKey;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    DeclaredPartitions.refuseBelowOne(spec, partitions);
    Project loaded;
    Fixture fixture;
    try {
      loaded = Project.load(project);
      fixture = Fixture.load(loaded, fixtureFile);
    } catch (InvalidProjectException e) {
      for (Problem problem : e.problems()) {
        err.println(problem);
      }
      return 1;
    }
    DeclaredModel model = DeclaredModel.of(loaded, fixture.model());
    if (model.source().connector() != Connector.KAFKA) {
      err.println(
          "streamform produce: source '"
              + model.source().name()
              + "' is not a kafka source (connector: "
              + model.source().connector().yamlName()
              + ")");
      return 1;
    }
    // a declared count sizes the topic produce creates, as run's topics (docs/decisions/0089)
    boolean declaredCount = model.source().partitions().isPresent();
    int create =
        DeclaredPartitions.sizing(
            spec, partitions, project, model.source(), "the topic produce creates", "it");
    Optional<KafkaConnection> connected = kafka.connection(null, project, model.source(), err);
    if (connected.isEmpty()) {
      return 1;
    }
    KafkaConnection connection = connected.get();
    String topic = model.source().topic().get();
    int topicPartitions;
    // the highest partition an item names: the topic must have it (checked before anything is
    // created or sent, so a fixture either goes whole or not at all)
    int needed = 0;
    for (Fixture.Given item : fixture.given()) {
      boolean placed = item.event().isPresent() ? !spreadByKey : !item.allPartitions();
      if (placed) {
        needed = Math.max(needed, item.partition() + 1);
      }
    }
    try (KafkaTopics topics = KafkaTopics.at(connection)) {
      boolean exists = topics.names().contains(topic);
      int available = exists ? topics.partitions(topic) : create;
      if (needed > available) {
        err.println(
            "streamform produce: "
                + fixtureFile
                + " names partition "
                + (needed - 1)
                + ", but topic "
                + topic
                + (exists ? " has " : " would be created with ")
                + Counts.of(available, "partition")
                + "; nothing was produced — "
                + (exists
                    ? "give the topic at least " + needed + " partitions, or"
                    : declaredCount
                        ? "declare partitions: " + needed + " in sources.yml, or"
                        : "add --partitions " + needed + ", or")
                + " send by key with --spread-by-key");
        return 1;
      }
      for (String created : topics.ensure(List.of(topic), create, Set.of())) {
        err.println(
            "streamform produce: created topic "
                + created
                + " ("
                + Counts.of(create, "partition")
                + ")");
      }
      topicPartitions = topics.partitions(topic);
    }
    int events = 0;
    int punctuations = 0;
    Progress progress = Progress.onTerminal(err);
    AtomicReference<Exception> failed = new AtomicReference<>();
    Callback firstFailure =
        (metadata, e) -> {
          if (e != null) {
            failed.compareAndSet(null, e);
          }
        };
    try (KafkaProducer<byte[], byte[]> producer = producer(connection)) {
      for (Fixture.Given item : fixture.given()) {
        progress.show("produce: items", events + punctuations, fixture.given().size(), topic);
        if (item.event().isPresent()) {
          Map<String, Object> values = item.event().get();
          Map<String, Object> key = new LinkedHashMap<>();
          model.keyColumns().forEach(k -> key.put(k, values.get(k)));
          Integer partition =
              spreadByKey ? null : checkPartition(item.partition(), topicPartitions);
          producer.send(
              new ProducerRecord<>(
                  topic,
                  partition,
                  JsonRecords.bytes(JsonRecords.object(key)),
                  JsonRecords.bytes(JsonRecords.object(values))),
              firstFailure);
          events++;
        } else {
          byte[] punctuation = JsonRecords.punctuation(item.watermark().get());
          if (item.allPartitions()) {
            for (int p = 0; p < topicPartitions; p++) {
              producer.send(new ProducerRecord<>(topic, p, null, punctuation), firstFailure);
            }
          } else {
            producer.send(
                new ProducerRecord<>(
                    topic, checkPartition(item.partition(), topicPartitions), null, punctuation),
                firstFailure);
          }
          punctuations++;
        }
      }
      producer.flush();
    } catch (KafkaException e) {
      failed.compareAndSet(null, e);
    }
    progress.done();
    if (failed.get() != null) {
      throw KafkaRefusedException.of("write to " + topic, connection, failed.get());
    }
    out.println(
        "produced "
            + Counts.of(events, "event")
            + " and "
            + Counts.of(punctuations, "watermark item")
            + " of "
            + fixture.name()
            + " to "
            + topic
            + " ("
            + Counts.of(topicPartitions, "partition")
            + ")");
    return 0;
  }

  private int checkPartition(int partition, int topicPartitions) {
    if (partition >= topicPartitions) {
      throw new IllegalStateException(
          "the fixture names partition "
              + partition
              + " but the topic has "
              + topicPartitions
              + " partitions");
    }
    return partition;
  }

  /**
   * An idempotent producer: each partition's records land in the order they were sent. Blocks at
   * most 20 s for the cluster (a wrong password fails at once; a broker that is not running fails
   * there too), unless the settings say otherwise; a record the running cluster has not
   * acknowledged is given Kafka's default two minutes (a CI run on a loaded machine saw one expire
   * after 30 s).
   *
   * <p>One request in flight per connection: produce writes to a topic it may have created a moment
   * ago, and a broker that answers the first request with "not the leader" (the partition not yet
   * opened) while accepting the second leaves the idempotent producer retrying the first out of
   * order until it expires — KAFKA-15591, seen once in CI as {@code OutOfOrderSequence} in the
   * broker's log and {@code Expiring 1 record(s) … 120000 ms} here. With one request in flight the
   * second is not sent before the first is written.
   */
  static KafkaProducer<byte[], byte[]> producer(KafkaConnection connection) {
    return new KafkaProducer<>(
        producerSettings(connection), new ByteArraySerializer(), new ByteArraySerializer());
  }

  static Properties producerSettings(KafkaConnection connection) {
    Properties p = new Properties();
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
    p.putAll(connection.clientConfig());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    return p;
  }
}
