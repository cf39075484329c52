package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

import dev.streamform.core.time.LateEvents;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.declarations.Materialization;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.schema.ColumnType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading a whole project: the values it gives, and problems across files. */
class ProjectLoaderTest {
  @TempDir Path dir;

  private static Path resource(String name) throws URISyntaxException {
    return Path.of(ProjectLoaderTest.class.getResource("/projects/" + name).toURI());
  }

  @Test
  void loadsTheSeedProject() throws Exception {
    Project project = ProjectFolder.seed(dir).load();

    SourceDeclaration orders = project.sources().get("orders");
    assertThat(orders.connector(), is(Connector.KAFKA));
    assertThat(orders.topic(), is(Optional.of("orders")));
    assertThat(orders.path(), is(Optional.empty()));
    assertThat(
        List.copyOf(orders.schema().keySet()), contains("customer_id", "amount", "ordered_at"));
    assertThat(orders.schema().get("amount"), is(ColumnType.decimal(12, 2)));
    assertThat(orders.eventTime(), is(Optional.of("ordered_at")));
    assertThat(orders.watermark(), is(Duration.ofMinutes(5)));
    assertThat(orders.lateEvents(), is(LateEvents.DROP));
    assertThat(orders.idleAfter(), is(Optional.empty()));

    ModelDeclaration metrics = project.models().get("customer_metrics");
    assertThat(metrics.materialized(), is(Materialization.UPSERT));
    assertThat(metrics.key(), contains("customer_id"));
    assertThat(metrics.retention(), is(Optional.empty()));
    assertThat(metrics.source(), is("orders"));
    assertThat(metrics.sqlFile(), is(dir.resolve("models/customer_metrics.sql")));
    assertThat(metrics.sql(), is(ProjectFolder.SQL));
    assertThat(project.sourceOf(metrics), is(orders));
  }

  /**
   * A project file or a fixture saved in another encoding is named, with the fix, never a crash.
   */
  @Test
  void aFileThatIsNotUtf8IsAProblemNamingItAndTheFix() throws Exception {
    Path fixture = dir.resolve("fixtures/m\u00fcller.yml");
    java.nio.file.Files.createDirectories(fixture.getParent());
    java.nio.file.Files.write(
        fixture,
        ("model: customer_metrics\n# M\u00fcller's orders\ngiven: []\nexpect: []\n")
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    Project project = ProjectFolder.seed(dir).load();
    InvalidProjectException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            InvalidProjectException.class, () -> Fixture.load(project, fixture));
    assertThat(
        refused.problems().get(0).toString(),
        org.hamcrest.Matchers.allOf(
            org.hamcrest.Matchers.containsString("m\u00fcller.yml:2: "),
            org.hamcrest.Matchers.containsString(
                "is not UTF-8 text: byte 4 of the line is 0xFC, which UTF-8 does not allow there"),
            org.hamcrest.Matchers.containsString("save the file as UTF-8")));
    java.nio.file.Files.write(
        dir.resolve("streamform.yml"),
        "models:\n  customer_metrics:\n    key: [customer_id] # M\u00fcller\n"
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    assertThat(
        ProjectFolder.at(dir).problems(),
        hasItem(
            org.hamcrest.Matchers.containsString(
                "streamform.yml:3: is not UTF-8 text: byte 27 of the line is 0xFC")));
  }

  @Test
  void appliesDefaults() throws Exception {
    Project project =
        ProjectFolder.seed(dir)
            .sources(
                """
                sources:
                  orders:
                    connector: file
                    path: orders.jsonl
                    schema:
                      customer_id: int64
                      amount: decimal(12,2)
                      ordered_at: timestamp
                    event_time: ordered_at
                    idle_after: 30s
                """)
            .models("models:\n  customer_metrics:\n    key: [customer_id]\n    retention: 10m\n")
            .load();
    SourceDeclaration orders = project.sources().get("orders");
    assertThat(orders.path(), is(Optional.of("orders.jsonl")));
    assertThat(orders.format(), is("json"));
    assertThat(orders.watermark(), is(Duration.ZERO));
    assertThat(orders.lateEvents(), is(LateEvents.DROP));
    assertThat(orders.idleAfter(), is(Optional.of(Duration.ofSeconds(30))));
    ModelDeclaration metrics = project.models().get("customer_metrics");
    assertThat(metrics.materialized(), is(Materialization.UPSERT));
    assertThat(metrics.retention(), is(Optional.of(Duration.ofMinutes(10))));
  }

  @Test
  void acceptsAProcessingTimeSource() throws Exception {
    Project project = Project.load(resource("processing-time"));
    assertThat(project.sources().get("orders").hasEventTime(), is(false));
  }

  @Test
  void reportsEveryProblemInOneRun() throws Exception {
    List<String> problems = ProjectFolder.at(resource("many-problems")).problems();
    assertThat(
        problems,
        contains(
            "sources.yml:10: source 'orders', key 'watermark': a watermark needs an event-time"
                + " column — add event_time: <timestamp column> or remove watermark",
            "sources.yml:11: source 'orders', key 'late_events': late_events needs an event-time"
                + " column; without one nothing is late — add event_time: <timestamp column> or"
                + " remove late_events",
            "sources.yml:18: source 'clicks', key 'event_time': 'at' is a string column, not a"
                + " timestamp — declare at: timestamp in the schema, or add a column of type"
                + " timestamp to the schema and name it here",
            "sources.yml:19: source 'clicks', key 'watermark': bad duration: '5 min' is not a"
                + " duration; write a whole number and a unit, e.g. 500ms, 0s, 10s, 5m, 2h or 30d —"
                + " e.g. watermark: 5m",
            "sources.yml:20: source 'clicks', key 'late_events': 'later' is not one of drop, keep"
                + " — write late_events: drop or late_events: keep",
            "streamform.yml:5: model 'customer_metrics', key 'retention': retention needs an"
                + " event-time source upstream; source 'orders' has no event_time, so there is no"
                + " clock to measure it by — add event_time: <timestamp column> to source 'orders'"
                + " in sources.yml, or remove retention"));
  }

  @Test
  void malformedYamlIsOneProblemWithItsLine() throws Exception {
    assertThat(
        ProjectFolder.at(resource("malformed")).problems(),
        contains(
            "streamform.yml:5: malformed YAML: while parsing a flow sequence: expected ',' or ']',"
                + " but got <stream end> — check the indentation and quoting on this line and the"
                + " one before"));
  }

  @Test
  void namesAMissingFolder() {
    assertThat(
        ProjectFolder.at(dir.resolve("nowhere")).problems(),
        contains(
            dir.resolve("nowhere")
                + ": no such folder"
                + " — give the folder that holds sources.yml, streamform.yml and models/"));
  }

  @Test
  void aFolderWhereAFileBelongsIsNamedAFolder() throws Exception {
    java.nio.file.Files.createDirectories(dir.resolve("sources.yml"));
    assertThat(
        ProjectFolder.at(dir).problems(),
        hasItem(
            "sources.yml: is a folder in "
                + dir
                + ", not a file — create it with sources: and one source per name (connector,"
                + " topic or path, schema)"));
  }

  @Test
  void namesMissingFiles() {
    assertThat(
        ProjectFolder.at(dir).problems(),
        contains(
            "sources.yml: not found in "
                + dir
                + " — create it with sources: and one source per name (connector, topic or path,"
                + " schema)",
            "streamform.yml: not found in "
                + dir
                + " — create it with models: and one model per name (materialized, key)"));
  }

  @Test
  void aFileIsNotAProject() throws Exception {
    Path lone = Files.writeString(dir.resolve("notes.txt"), "x");
    assertThat(
        ProjectFolder.at(lone).problems(),
        contains(
            lone
                + ": is a file, not a folder"
                + " — give the folder that holds sources.yml, streamform.yml and models/"));
  }

  @Test
  void aFileOfAProjectNamesTheProjectFolder() {
    ProjectFolder.seed(dir);
    assertThat(
        ProjectFolder.at(dir.resolve("sources.yml")).problems(),
        contains(
            dir.resolve("sources.yml")
                + ": is a file inside project "
                + dir
                + ", not a project folder — give the project folder "
                + dir));
  }

  @Test
  void theExceptionMessageListsAndCounts() {
    InvalidProjectException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            InvalidProjectException.class, () -> Project.load(dir));
    assertThat(e.getMessage().endsWith("\n2 problems"), is(true));
  }

  @Test
  void aProjectWithoutModelsIsValid() throws Exception {
    Project project =
        ProjectFolder.seed(dir).models("models: {}\n").delete("models/customer_metrics.sql").load();
    assertThat(project.models().isEmpty(), is(true));
  }

  @Test
  void anUnusableSourcesFileDoesNotBlameTheModels() {
    assertThat(
        ProjectFolder.seed(dir).sources("sources: [orders]\n").problems(),
        contains(
            "sources.yml:1: key 'sources': expected a map, got a list"
                + " — write sources: followed by one source per name"));
  }

  @Test
  void aSourceWithProblemsStillLetsItsModelsBeChecked() {
    assertThat(
        ProjectFolder.seed(dir)
            .sources(ProjectFolder.SOURCES.replace("topic: orders", "topic: [orders]"))
            .models("models:\n  customer_metrics:\n    key: [customer]\n")
            .problems(),
        hasItem(
            org.hamcrest.Matchers.startsWith(
                "streamform.yml:3: model 'customer_metrics', key 'key':"
                    + " 'customer' is not a column the query produces")));
  }
}
