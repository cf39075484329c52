package dev.streamform.pipelines.kafka;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates the topics a command needs when they are missing, with Kafka's {@link Admin} client (the
 * broker started by {@code runners-config/bin/kafka} has no topic tools). A topic that exists is
 * left as it is, whatever its partition count. A cluster that cannot be reached or refuses the
 * connection's credentials is a {@link KafkaRefusedException} within about 30 seconds.
 */
public final class KafkaTopics implements AutoCloseable {
  private static final long TIMEOUT_SECONDS = 30;

  private final Admin admin;
  private final KafkaConnection connection;

  private KafkaTopics(KafkaConnection connection) {
    Properties p = new Properties();
    // timeouts first: a wrong password or protocol fails within them instead of hanging; the
    // connection's own settings may change them
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
    p.putAll(connection.clientConfig());
    this.connection = connection;
    try {
      this.admin = Admin.create(p);
    } catch (org.apache.kafka.common.KafkaException e) {
      throw failure("create an admin client", e); // e.g. a truststore that cannot be loaded
    }
  }

  /** Kafka's defaults at {@code bootstrapServers}. */
  public static KafkaTopics at(String bootstrapServers) {
    return at(KafkaConnection.plaintext(bootstrapServers));
  }

  /**
   * The cluster {@code connection} reaches.
   *
   * @throws dev.streamform.policies.project.KafkaClientProperties.UnsetVariableException when a
   *     setting names an environment variable that is not set
   */
  public static KafkaTopics at(KafkaConnection connection) {
    return new KafkaTopics(connection);
  }

  /** The topics that exist. */
  public Set<String> names() {
    return get(admin.listTopics().names(), "list topics");
  }

  /** The partition count of an existing topic. */
  public int partitions(String topic) {
    return get(admin.describeTopics(List.of(topic)).allTopicNames(), "describe topic " + topic)
        .get(topic)
        .partitions()
        .size();
  }

  /**
   * Creates each missing topic with {@code partitions} partitions (single replica); {@code
   * compacted} ones with {@code cleanup.policy=compact} (upsert topics), and waits until every
   * partition of each has a leader. Returns those it created.
   */
  public List<String> ensure(List<String> topics, int partitions, Set<String> compacted) {
    Set<String> existing = names();
    Map<String, NewTopic> missing = new LinkedHashMap<>();
    for (String t : topics) {
      if (!existing.contains(t) && !missing.containsKey(t)) {
        NewTopic topic = new NewTopic(t, partitions, (short) 1);
        if (compacted.contains(t)) {
          topic.configs(
              Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
        }
        missing.put(t, topic);
      }
    }
    List<String> created = new ArrayList<>();
    for (Map.Entry<String, NewTopic> t : missing.entrySet()) {
      try {
        admin.createTopics(List.of(t.getValue())).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        awaitLeaders(t.getKey());
        created.add(t.getKey());
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw failure("create topic " + t.getKey(), e);
        }
      } catch (InterruptedException | TimeoutException e) {
        throw failure("create topic " + t.getKey(), e);
      }
    }
    return created;
  }

  /**
   * Waits, at most {@link #TIMEOUT_SECONDS}, until every partition of a topic just created has a
   * leader: the broker answers a creation before it has elected them, and until then a producer's
   * records for a partition without one wait in its buffer (a CI run on a loaded machine saw one
   * expire after the producer's delivery timeout, "Expiring 1 record(s) for payments_effects-2").
   */
  private void awaitLeaders(String topic) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (true) {
      TopicDescription description;
      try {
        description =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .get(topic);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw failure("describe topic " + topic, e);
        }
        description = null; // not known to the broker answering yet
      } catch (InterruptedException | TimeoutException e) {
        throw failure("describe topic " + topic, e);
      }
      if (description != null
          && description.partitions().stream().allMatch(p -> p.leader() != null)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw failure(
            "elect leaders for the partitions of topic " + topic,
            new TimeoutException(
                "not every partition had a leader after " + TIMEOUT_SECONDS + " s"));
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        throw failure("describe topic " + topic, e);
      }
    }
  }

  /**
   * How many records each of {@code topics} that exists holds now: per partition its latest offset
   * less its earliest (a compacted topic may hold fewer; an upper bound then), summed; a missing
   * topic is left out. {@code run} says so at its start: a run without a savepoint reads its source
   * from the earliest offsets, so what earlier runs published is published again.
   */
  public Map<String, Long> records(List<String> topics) {
    Set<String> existing = names();
    Map<String, Long> held = new LinkedHashMap<>();
    for (String t : topics) {
      if (!existing.contains(t) || held.containsKey(t)) {
        continue;
      }
      Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec>
          earliest = new LinkedHashMap<>();
      Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec>
          latest = new LinkedHashMap<>();
      for (int p = 0; p < partitions(t); p++) {
        org.apache.kafka.common.TopicPartition tp =
            new org.apache.kafka.common.TopicPartition(t, p);
        earliest.put(tp, org.apache.kafka.clients.admin.OffsetSpec.earliest());
        latest.put(tp, org.apache.kafka.clients.admin.OffsetSpec.latest());
      }
      var from = get(admin.listOffsets(earliest).all(), "list the offsets of topic " + t);
      var to = get(admin.listOffsets(latest).all(), "list the offsets of topic " + t);
      long n = 0;
      for (var e : to.entrySet()) {
        n += Math.max(0, e.getValue().offset() - from.get(e.getKey()).offset());
      }
      held.put(t, n);
    }
    return held;
  }

  private <T> T get(org.apache.kafka.common.KafkaFuture<T> future, String what) {
    try {
      return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException | InterruptedException | TimeoutException e) {
      throw failure(what, e);
    }
  }

  private KafkaRefusedException failure(String what, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    return KafkaRefusedException.of(what, connection, e);
  }

  @Override
  public void close() {
    admin.close();
  }
}
