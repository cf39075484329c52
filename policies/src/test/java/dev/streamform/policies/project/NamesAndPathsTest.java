package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 28, names become paths: a topic is a legal Kafka topic name (it also names a file under
 * {@code streamform run --output}), and every file a declaration names lies in the project folder,
 * links followed. {@code check} refuses the rest with file, line, key and fix.
 */
class NamesAndPathsTest {
  @TempDir Path tmp;

  private ProjectFolder project() {
    return ProjectFolder.seed(tmp.resolve("project"));
  }

  private static String sources(String connector, String where) {
    return "sources:\n  orders:\n    connector: "
        + connector
        + "\n    "
        + where
        + "\n"
        + "    schema:\n      customer_id: int64\n      amount: decimal(12,2)\n"
        + "      ordered_at: timestamp\n    event_time: ordered_at\n";
  }

  @ParameterizedTest
  @ValueSource(strings = {"late_topic", "quarantine_topic", "topic"})
  void aModelTopicThatIsAPathIsRefused(String key) {
    for (String bad : new String[] {"../x", "a/b", "..", "/tmp/x", "two words"}) {
      ProjectFolder p =
          project()
              .models(
                  "models:\n  customer_metrics:\n    key: [customer_id]\n"
                      + "    "
                      + key
                      + ": \""
                      + bad
                      + "\"\n");
      assertThat(
          bad,
          p.problems(),
          contains(
              "streamform.yml:4: model 'customer_metrics', key '"
                  + key
                  + "': '"
                  + bad
                  + "' is not a Kafka topic name (letters, digits, '.', '_' and '-'"
                  + (bad.equals("..") ? ", other than . and .." : "")
                  + ") — write "
                  + key
                  + ": "
                  + (key.equals("topic")
                      ? "customer_metrics"
                      : key.equals("late_topic") ? "orders_late" : "orders_quarantine")
                  + " — 1 to 249 letters, digits, '.', '_' or '-', no '/'"));
    }
  }

  @Test
  void legalTopicNamesLoad() throws Exception {
    assertThat(
        project()
            .models(
                "models:\n  customer_metrics:\n    key: [customer_id]\n"
                    + "    late_topic: orders.late-v2_x\n    quarantine_topic: "
                    + "q".repeat(249)
                    + "\n")
            .load()
            .models()
            .get("customer_metrics")
            .lateTopic()
            .get(),
        is("orders.late-v2_x"));
    assertThat(
        project()
            .models(
                "models:\n  customer_metrics:\n    key: [customer_id]\n"
                    + "    quarantine_topic: "
                    + "q".repeat(250)
                    + "\n")
            .problems()
            .get(0),
        is(
            "streamform.yml:4: model 'customer_metrics', key 'quarantine_topic': is 250 characters"
                + " long, not a Kafka topic name (at most 249) — write quarantine_topic:"
                + " orders_quarantine — 1 to 249 letters, digits, '.', '_' or '-', no '/'"));
  }

  @Test
  void aSourceTopicIsAKafkaTopicName() {
    assertThat(
        project().sources(sources("kafka", "topic: ../orders")).problems(),
        contains(
            "sources.yml:4: source 'orders', key 'topic': '../orders' is not a Kafka topic name"
                + " (letters, digits, '.', '_' and '-') — write topic: orders — 1 to 249 letters,"
                + " digits, '.', '_' or '-', no '/'"));
  }

  @Test
  void aFileSourcePathOutsideTheProjectIsRefused() throws Exception {
    Path root = tmp.resolve("project").toAbsolutePath().normalize();
    for (String bad :
        new String[] {"../orders.jsonl", "data/../../orders.jsonl", "/etc/passwd", "../*.jsonl"}) {
      String why =
          bad.startsWith("/")
              ? "'" + bad + "' is not relative to the project folder"
              : bad.contains("*")
                  ? "'" + bad + "' leads outside the project folder (..)"
                  : "'" + bad + "' leads outside the project folder " + root;
      assertThat(
          bad,
          project().sources(sources("file", "path: \"" + bad + "\"")).problems(),
          contains(
              "sources.yml:4: source 'orders', key 'path': "
                  + why
                  + " — "
                  + ProjectFiles.FIX
                  + ", e.g. path: orders.jsonl"));
    }
    // inside after normalisation: fine
    assertThat(
        project()
            .sources(sources("file", "path: data/../orders.jsonl"))
            .load()
            .sources()
            .get("orders")
            .path()
            .get(),
        is("data/../orders.jsonl"));
  }

  @Test
  void anEmptyFileSourcePathIsCalledEmpty() {
    assertThat(
        project().sources(sources("file", "path: \"\"")).problems(),
        contains(
            "sources.yml:4: source 'orders', key 'path': the path is empty — a file source needs"
                + " path: naming a file of JSON lines (or a glob such as orders/*.jsonl) relative"
                + " to the project folder, e.g. path: orders.jsonl"));
  }

  @Test
  void aLinkToAFileOutsideTheProjectIsRefused() throws Exception {
    Path outside = Files.writeString(tmp.resolve("elsewhere.jsonl"), "{}\n");
    ProjectFolder p = project().sources(sources("file", "path: orders.jsonl"));
    Path link = Files.createSymbolicLink(p.dir().resolve("orders.jsonl"), outside.toAbsolutePath());
    assertThat(
        p.problems(),
        contains(
            "sources.yml:4: source 'orders', key 'path': 'orders.jsonl'"
                + " is a link to "
                + outside.toRealPath()
                + ", outside the project folder — "
                + ProjectFiles.FIX
                + ", e.g. path: orders.jsonl"));
    Files.delete(link);
    Files.copy(outside, p.dir().resolve("orders.jsonl"));
    p.load();
  }

  @Test
  void kafkaPropertiesOutsideTheProjectAreRefused() throws Exception {
    Files.writeString(tmp.resolve("client.properties"), "security.protocol=PLAINTEXT\n");
    ProjectFolder p =
        project()
            .sources(sources("kafka", "topic: orders\n    kafka.properties: ../client.properties"));
    assertThat(
        p.problems(),
        contains(
            "sources.yml:5: source 'orders', key 'kafka.properties':"
                + " '../client.properties' leads outside the project folder "
                + p.dir().toAbsolutePath().normalize()
                + " — "
                + ProjectFiles.FIX
                + ", e.g. kafka.properties: kafka.properties"));
  }

  @Test
  void aLinearModelOutsideTheProjectIsRefused() throws Exception {
    Files.writeString(tmp.resolve("risk.linear.yml"), "bias: 0\nweights:\n  amount: 0.01\n");
    ProjectFolder p =
        project()
            .models(
                "models:\n"
                    + "  customer_metrics:\n"
                    + "    key: [customer_id]\n"
                    + "    decisions:\n"
                    + "      features_over: 1h\n"
                    + "      linear: ../risk.linear.yml\n");
    assertThat(
        p.problems(),
        contains(
            "streamform.yml:6: model 'customer_metrics', key"
                + " 'decisions.linear': '../risk.linear.yml' leads outside the project folder "
                + p.dir().toAbsolutePath().normalize()
                + " — "
                + ProjectFiles.FIX
                + ", e.g. linear: models/<model>.linear.yml"));
  }

  @Test
  void aLinearModelWithARepeatedKeyIsRefusedWithItsLine() {
    ProjectFolder p =
        project()
            .models(
                "models:\n"
                    + "  customer_metrics:\n"
                    + "    key: [customer_id]\n"
                    + "    decisions:\n"
                    + "      features_over: 1h\n"
                    + "      linear: models/risk.linear.yml\n")
            .write("models/risk.linear.yml", "bias: 0\nweights:\n  amount: 0.01\n  amount: 5\n");
    assertThat(
        p.problems(),
        contains(
            "streamform.yml:6: model 'customer_metrics', key"
                + " 'decisions.linear': models/risk.linear.yml line 4: found duplicate key amount"
                + " — write bias: <number> and weights: {<feature or column>: <number>, ...}"));
  }
}
