package dev.streamform.endtoend;

import static dev.streamform.endtoend.ChangelogRows.normalized;
import static dev.streamform.endtoend.LocalServices.readUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.endtoend.LocalServices.TopicRecord;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.oracle.Oracle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * One fault test's copy of project {@code faults/} (the upsert model {@code customer_metrics} on
 * topics of its own, {@code faults_<name>...}) and its items: phases (fixture-shaped files)
 * produced in order. {@link #check} compares what the job wrote with the reference {@link Oracle}'s
 * answer for every phase, prints the figures and asserts them:
 *
 * <ul>
 *   <li>every changelog record the oracle gives is on the topic (lost 0), and every record on the
 *       topic is the oracle's record for its causing event ({@code __event}): a record written
 *       again by a replay repeats it exactly (counted as redelivered), never a second application
 *       (doubled 0);
 *   <li>per key, the last record on the topic is the oracle's final value: what a reader of the
 *       compacted upsert topic by key sees;
 *   <li>the late and quarantine topics hold exactly the oracle's late and quarantined events, and
 *       processed + late + quarantined = events in.
 * </ul>
 */
final class FaultStory {
  static final Path TEMPLATE = Path.of("src/test/resources/faults").toAbsolutePath();
  static final String MODEL = "customer_metrics";

  /** What one test counted, against the oracle. */
  record Figures(int eventsIn, int processed, int late, int quarantined, int changelogRecords,
      int redelivered, int lost, int doubled) {}

  final String name;
  final Path project;
  final List<Path> phases = new ArrayList<>();
  final String topic;

  private FaultStory(String name, Path project) {
    this.name = name;
    this.project = project;
    this.topic = "faults_" + name + "_metrics";
  }

  /** A copy of {@code faults/} on topics {@code faults_<name>...}, and the phase files in it. */
  static FaultStory of(String name, String... phaseFiles) throws IOException {
    Path dir = Path.of("target", "faults", name).toAbsolutePath();
    copy(TEMPLATE, dir);
    Path sources = dir.resolve("sources.yml");
    String s = Files.readString(sources).replace("    topic: orders\n", "    topic: faults_" + name + "\n");
    Files.writeString(sources, s);
    Path models = dir.resolve("streamform.yml");
    String topic = "faults_" + name + "_metrics";
    Files.writeString(models, Files.readString(models) + "    topic: " + topic + "\n"
        + "    late_topic: " + topic + ".late\n    quarantine_topic: " + topic + ".quarantine\n");
    FaultStory story = new FaultStory(name, dir);
    for (String f : phaseFiles) {
      story.phases.add(dir.resolve(f));
    }
    return story;
  }

  /** Adds lines to the source's declaration (before the job is submitted). */
  FaultStory withSourceLines(String lines) throws IOException {
    Path sources = project.resolve("sources.yml");
    Files.writeString(sources, Files.readString(sources) + lines);
    return this;
  }

  Path phase(int i) {
    return phases.get(i);
  }

  /** Adds a phase: a fixture-shaped file written at run time (the soak's batches). */
  void addPhase(Path items) {
    phases.add(items);
  }

  /** The oracle's answer for the first {@code n} phases, delivered in order. */
  FixtureOutcome oracle(int n) throws Exception {
    Project p = Project.load(project);
    List<Fixture.Given> given = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      given.addAll(Fixture.load(p, phases.get(i)).given());
    }
    return Oracle.of(DeclaredModel.of(p, MODEL)).run(given);
  }

  int eventsIn(int n) throws Exception {
    Project p = Project.load(project);
    int events = 0;
    for (int i = 0; i < n; i++) {
      events += (int) Fixture.load(p, phases.get(i)).given().stream().filter(g -> g.event().isPresent()).count();
    }
    return events;
  }

  /** Waits until the changelog topic holds a record for every event the first {@code n} phases change. */
  void awaitChangelogOf(int n) throws Exception {
    Set<String> events = new TreeSet<>();
    oracle(n).changelog.forEach(c -> events.add(c.eventId));
    readUntil(topic, "a record for each of " + events.size() + " events",
        records -> causes(records).containsAll(events));
  }

  /**
   * Reads the three topics once they hold the oracle's answer for every phase, prints the
   * figures and asserts them.
   */
  Figures check(String fault) throws Exception {
    return check(fault, 0);
  }

  /** {@link #check(String)} once the changelog topic also holds at least {@code atLeast} records. */
  Figures check(String fault, int atLeast) throws Exception {
    FixtureOutcome oracle = oracle(phases.size());
    Map<String, Map<String, Object>> expected = new TreeMap<>();
    Map<String, Map<String, Object>> finalByKey = new TreeMap<>();
    for (FixtureOutcome.Change c : oracle.changelog) {
      Map<String, Object> row = new LinkedHashMap<>(c.values);
      row.put("op", c.op);
      expected.put(c.eventId, normalized(row));
      finalByKey.put(String.valueOf(c.values.get("customer_id")), normalized(row));
    }
    Set<String> lateIds = new TreeSet<>();
    oracle.late.forEach(d -> lateIds.add(d.eventId));
    Set<String> quarantinedIds = new TreeSet<>();
    oracle.quarantined.forEach(q -> quarantinedIds.add(q.eventId));

    List<TopicRecord> changelog = readUntil(topic, "the oracle's " + expected.size() + " changelog events",
        read -> read.size() >= atLeast && causes(read).containsAll(expected.keySet()));
    List<TopicRecord> late = readUntil(topic + ".late", lateIds.size() + " late events",
        records -> positions(records).containsAll(lateIds));
    List<TopicRecord> quarantine = readUntil(topic + ".quarantine", quarantinedIds.size() + " quarantined records",
        records -> positions(records).containsAll(quarantinedIds));

    Map<String, Map<String, Object>> firstSeen = new TreeMap<>();
    Map<String, Map<String, Object>> lastByKey = new TreeMap<>();
    int redelivered = 0;
    int doubled = 0;
    List<String> wrong = new ArrayList<>();
    for (TopicRecord r : changelog) { // topic order: a key lives in one topic partition
      Map<String, Object> row = new LinkedHashMap<>();
      r.value().fields().forEachRemaining(f -> {
        if (!f.getKey().equals("__event")) {
          row.put(f.getKey(), f.getValue().isNumber() ? f.getValue().decimalValue() : f.getValue().asText());
        }
      });
      Map<String, Object> shown = normalized(row);
      String cause = r.value().get("__event").asText();
      lastByKey.put(String.valueOf(shown.get("customer_id")), shown);
      if (!shown.equals(expected.get(cause))) {
        doubled++; // applied twice, or applied to the wrong state: not what the oracle gives for it
        wrong.add(cause + " " + shown + " (oracle: " + expected.get(cause) + ")");
      } else if (firstSeen.putIfAbsent(cause, shown) != null) {
        redelivered++; // the same record again: a replay after recovery, harmless to readers by key
      }
    }
    Set<String> written = causes(changelog);
    int lost = (int) expected.keySet().stream().filter(e -> !written.contains(e)).count();
    Set<String> lateWritten = positions(late);
    Set<String> quarantinedWritten = positions(quarantine);
    Figures f = new Figures(eventsIn(phases.size()), written.size(), lateWritten.size(),
        quarantinedWritten.size(), changelog.size(), redelivered, lost, doubled);
    System.out.printf("fault %s: %s: events in %d, processed %d (oracle %d), late %d (oracle %d),"
            + " quarantined %d (oracle %d), changelog records %d (%d distinct, %d redelivered),"
            + " lost %d, doubled %d%n",
        name, fault, f.eventsIn(), f.processed(), oracle.processed, f.late(), lateIds.size(), f.quarantined(),
        quarantinedIds.size(), f.changelogRecords(), firstSeen.size(), f.redelivered(), f.lost(), f.doubled());

    assertEquals(List.of(), wrong, "records the oracle does not give for their event (a double count)");
    assertEquals(expected.keySet(), written, "changelog events: the oracle's, each at least once");
    assertEquals(oracle.processed, f.processed(), "events processed");
    assertEquals(finalByKey, lastByKey, "per key, the last record on the upsert topic is the oracle's final value");
    assertEquals(lateIds, lateWritten, "late events");
    assertEquals(quarantinedIds, quarantinedWritten, "quarantined events");
    assertEquals(f.eventsIn(), f.processed() + f.late() + f.quarantined(), "every event processed, late or quarantined");
    return f;
  }
  /** The causing events ({@code __event}) of changelog records. */
  private static Set<String> causes(List<TopicRecord> records) {
    Set<String> out = new TreeSet<>();
    records.forEach(r -> out.add(r.value().get("__event").asText()));
    return out;
  }

  /** {@code <partition>-<offset>} of the source records that late or quarantine records name. */
  private static Set<String> positions(List<TopicRecord> records) {
    Set<String> out = new TreeSet<>();
    records.forEach(r -> out.add(r.value().get("partition").asInt() + "-" + r.value().get("offset").asLong()));
    return out;
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }
}
