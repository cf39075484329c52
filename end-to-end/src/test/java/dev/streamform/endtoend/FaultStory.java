package dev.streamform.endtoend;

import static dev.streamform.endtoend.ChangelogRows.normalized;
import static dev.streamform.endtoend.LocalServices.awaitRecords;
import static dev.streamform.endtoend.LocalServices.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.function.Predicate;
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
 *       processed + late + quarantined = events in;
 *   <li>with {@link #withEventId} (a source with {@code event_id}): the duplicates topic ({@code
 *       customer_metrics.duplicates}) holds exactly the oracle's duplicates, the quarantine topic's
 *       conflicts (a repeated id with another payload) are the oracle's with the oracle's reason,
 *       and processed + late + duplicates + quarantined = events in.
 * </ul>
 *
 * <p>A record written again by a replay (late, quarantine, duplicates topics) is counted once: the
 * figures count distinct source positions.
 */
final class FaultStory {
  static final Path TEMPLATE = Path.of("src/test/resources/faults").toAbsolutePath();
  static final String MODEL = "customer_metrics";

  /** What one test counted, against the oracle. */
  record Figures(
      int eventsIn,
      int processed,
      int late,
      int quarantined,
      int changelogRecords,
      int redelivered,
      int lost,
      int doubled,
      int duplicates,
      int conflicts,
      int lateRecords) {}

  /**
   * The quarantine reason of a repeated id with another payload (Deduplicate's and the oracle's).
   */
  private static final String CONFLICT =
      " with another payload; a repeated id must repeat its event exactly";

  final String name;
  final Path project;
  final List<Path> phases = new ArrayList<>();
  final String topic;

  /**
   * True once {@link #withEventId} declared {@code event_id}: duplicates and conflicts are checked.
   */
  private boolean eventIds;

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
    String s =
        Files.readString(sources)
            .replace("    topic: orders\n", "    topic: faults_" + name + "\n");
    Files.writeString(sources, s);
    Path models = dir.resolve("streamform.yml");
    String topic = "faults_" + name + "_metrics";
    Files.writeString(
        models,
        Files.readString(models)
            + "    topic: "
            + topic
            + "\n"
            + "    late_topic: "
            + topic
            + ".late\n    quarantine_topic: "
            + topic
            + ".quarantine\n");
    FaultStory story = new FaultStory(name, dir);
    for (String f : phaseFiles) {
      story.phases.add(dir.resolve(f));
    }
    return story;
  }

  /**
   * Declares {@code retention} on the model (before the job is submitted): a key's state is dropped
   * once its partition's watermark reaches its latest event time + {@code retention}, and its next
   * event starts again with {@code insert} (docs/semantics.md §3).
   */
  FaultStory withRetention(String retention) throws IOException {
    Path models = project.resolve("streamform.yml");
    Files.writeString(models, Files.readString(models) + "    retention: " + retention + "\n");
    return this;
  }

  /**
   * The oracle's expiries in the first {@code n} phases: {@code insert} records of a key that had
   * state before (with {@link #withRetention}: its state expired, and an event came back to it).
   */
  int expiries(int n) throws Exception {
    Set<String> seen = new java.util.HashSet<>();
    int again = 0;
    for (FixtureOutcome.Change c : oracle(n).changelog) {
      if (!seen.add(String.valueOf(c.values.get("customer_id"))) && c.op.equals("insert")) {
        again++;
      }
    }
    return again;
  }

  /** Adds lines to the model's declaration (before the job is submitted). */
  FaultStory withModelLines(String lines) throws IOException {
    Path models = project.resolve("streamform.yml");
    Files.writeString(models, Files.readString(models) + lines);
    return this;
  }

  /** Adds lines to the source's declaration (before the job is submitted). */
  FaultStory withSourceLines(String lines) throws IOException {
    Path sources = project.resolve("sources.yml");
    Files.writeString(sources, Files.readString(sources) + lines);
    return this;
  }

  /**
   * Declares {@code event_id: order_id} (a string column added to the schema) and {@code
   * duplicates_within} on the source, before the job is submitted. The job then writes dropped
   * duplicates to {@code customer_metrics.duplicates} (the name cannot be changed per test, so only
   * one story of a run may use this).
   */
  FaultStory withEventId(String duplicatesWithin) throws IOException {
    Path sources = project.resolve("sources.yml");
    String s = Files.readString(sources);
    String column = "      customer_id: int64\n";
    if (!s.contains(column)) {
      throw new IllegalStateException(
          sources + " has no line `" + column.strip() + "` to put order_id before");
    }
    Files.writeString(
        sources,
        s.replace(column, "      order_id: string\n" + column)
            + "    event_id: order_id\n    duplicates_within: "
            + duplicatesWithin
            + "\n");
    eventIds = true;
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

  /**
   * The oracle's duplicates dropped among phases {@code from..} (0-based, to the end) whose id
   * ({@code order_id}) came with an event of phase {@code first}: repeats whose first delivery is
   * in that phase. For a story to show that it has the cases it is about.
   */
  long duplicatesOf(int first, int from) throws Exception {
    Project p = Project.load(project);
    Set<Object> ids = new java.util.HashSet<>();
    Fixture.load(p, phases.get(first))
        .given()
        .forEach(g -> g.event().ifPresent(e -> ids.add(e.get("order_id"))));
    Set<String> before = new TreeSet<>();
    oracle(from).duplicates.forEach(d -> before.add(d.eventId));
    return oracle(phases.size()).duplicates.stream()
        .filter(d -> !before.contains(d.eventId) && ids.contains(d.record.get("order_id")))
        .count();
  }

  int eventsIn(int n) throws Exception {
    Project p = Project.load(project);
    int events = 0;
    for (int i = 0; i < n; i++) {
      events +=
          (int)
              Fixture.load(p, phases.get(i)).given().stream()
                  .filter(g -> g.event().isPresent())
                  .count();
    }
    return events;
  }

  /**
   * Waits until the late topic holds every event the oracle drops as late in the first {@code n}
   * phases.
   */
  void awaitLateOf(int n) throws Exception {
    Set<String> late = new TreeSet<>();
    oracle(n).late.forEach(d -> late.add(d.eventId));
    awaitRecords(
        topic + ".late",
        late.size() + " late events",
        records -> positions(records).containsAll(late));
  }

  /**
   * Waits until the changelog topic holds a record for every event the first {@code n} phases
   * change.
   */
  void awaitChangelogOf(int n) throws Exception {
    Set<String> events = new TreeSet<>();
    oracle(n).changelog.forEach(c -> events.add(c.eventId));
    awaitRecords(
        topic,
        "a record for each of " + events.size() + " events",
        records -> causes(records).containsAll(events));
  }

  /**
   * Drains the topics (each until it holds the oracle's answer for every phase, or for at most
   * {@link LocalServices#AWAIT}), counts what is missing and what is extra against the oracle,
   * prints the figures and then asserts them: a loss prints {@code lost N} and fails with it.
   */
  Figures check(String fault) throws Exception {
    return check(fault, 0);
  }

  /**
   * {@link #check(String)}, the changelog drained until it also holds at least {@code atLeast}
   * records.
   */
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

    Set<String> duplicateIds = new TreeSet<>();
    oracle.duplicates.forEach(d -> duplicateIds.add(d.eventId));
    Map<String, Predicate<List<TopicRecord>>> enough = new LinkedHashMap<>();
    enough.put(
        topic, read -> read.size() >= atLeast && causes(read).containsAll(expected.keySet()));
    enough.put(topic + ".late", r -> positions(r).containsAll(lateIds));
    enough.put(topic + ".quarantine", r -> positions(r).containsAll(quarantinedIds));
    // the duplicates topic exists only for a source with event_id (streamform run creates it)
    if (eventIds) {
      enough.put(MODEL + ".duplicates", r -> positions(r).containsAll(duplicateIds));
    }
    Map<String, List<TopicRecord>> read = drain(enough);
    List<TopicRecord> changelog = read.get(topic);
    List<TopicRecord> late = read.get(topic + ".late");
    List<TopicRecord> quarantine = read.get(topic + ".quarantine");
    Map<String, String> conflictReasons = new TreeMap<>(); // position -> the oracle's reason
    oracle.quarantined.stream()
        .filter(q -> q.reason.endsWith(CONFLICT))
        .forEach(q -> conflictReasons.put(q.eventId, q.reason));
    List<TopicRecord> duplicates = eventIds ? read.get(MODEL + ".duplicates") : List.of();

    Map<String, Map<String, Object>> firstSeen = new TreeMap<>();
    Map<String, Map<String, Object>> lastByKey = new TreeMap<>();
    int redelivered = 0;
    int doubled = 0;
    List<String> wrong = new ArrayList<>();
    for (TopicRecord r : changelog) { // topic order: a key lives in one topic partition
      Map<String, Object> row = new LinkedHashMap<>();
      r.value()
          .fields()
          .forEachRemaining(
              f -> {
                if (!f.getKey().equals("__event")) {
                  row.put(
                      f.getKey(),
                      f.getValue().isNumber()
                          ? f.getValue().decimalValue()
                          : f.getValue().asText());
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
    Set<String> lateWritten = positions(late);
    Set<String> quarantinedWritten = positions(quarantine);
    Set<String> duplicatesWritten = positions(duplicates);
    // lost: an event of the oracle's answer that no topic shows where the oracle puts it
    int[] missing = {
      missing(expected.keySet(), written),
      missing(lateIds, lateWritten),
      missing(quarantinedIds, quarantinedWritten),
      missing(duplicateIds, duplicatesWritten)
    };
    int lost = missing[0] + missing[1] + missing[2] + missing[3];
    Map<String, String> conflictsWritten = new TreeMap<>(); // position -> the reason on the topic
    for (TopicRecord r : quarantine) {
      String reason = r.value().get("reason").asText();
      if (reason.endsWith(CONFLICT)) {
        conflictsWritten.put(
            r.value().get("partition").asInt() + "-" + r.value().get("offset").asLong(), reason);
      }
    }
    Figures f =
        new Figures(
            eventsIn(phases.size()),
            written.size(),
            lateWritten.size(),
            quarantinedWritten.size(),
            changelog.size(),
            redelivered,
            lost,
            doubled,
            duplicatesWritten.size(),
            conflictsWritten.size(),
            late.size());
    // a duplicate written again by a replay shows as more records than distinct positions
    String repeats =
        !eventIds
            ? ""
            : String.format(
                ", duplicates %d (oracle %d; %d records on the topic), conflicts %d (oracle %d)",
                f.duplicates(),
                duplicateIds.size(),
                duplicates.size(),
                f.conflicts(),
                conflictReasons.size());
    System.out.printf(
        "fault %s: %s: events in %d, processed %d (oracle %d), late %d (oracle %d; %d records on"
            + " the topic), quarantined %d (oracle %d)%s, changelog records %d (%d distinct, %d"
            + " redelivered), lost %d%s, doubled %d%n",
        name,
        fault,
        f.eventsIn(),
        f.processed(),
        oracle.processed,
        f.late(),
        lateIds.size(),
        f.lateRecords(),
        f.quarantined(),
        quarantinedIds.size(),
        repeats,
        f.changelogRecords(),
        firstSeen.size(),
        f.redelivered(),
        f.lost(),
        f.lost() == 0
            ? ""
            : String.format(
                " (changelog %d, late %d, quarantine %d, duplicates %d)",
                missing[0], missing[1], missing[2], missing[3]),
        f.doubled());

    assertEquals(0, f.lost(), "lost: events of the oracle's answer missing from the topics");

    assertEquals(
        List.of(), wrong, "records the oracle does not give for their event (a double count)");
    assertEquals(expected.keySet(), written, "changelog events: the oracle's, each at least once");
    assertEquals(oracle.processed, f.processed(), "events processed");
    assertEquals(
        finalByKey,
        lastByKey,
        "per key, the last record on the upsert topic is the oracle's final value");
    assertEquals(lateIds, lateWritten, "late events");
    assertEquals(quarantinedIds, quarantinedWritten, "quarantined events");
    assertEquals(duplicateIds, duplicatesWritten, "duplicates");
    assertEquals(
        conflictReasons.keySet(), conflictsWritten.keySet(), "conflicts (quarantined as such)");
    conflictReasons.forEach(
        (at, reason) ->
            assertTrue(
                conflictsWritten.get(at).endsWith(reason),
                "conflict at "
                    + at
                    + ": the topic's reason `"
                    + conflictsWritten.get(at)
                    + "` ends with the oracle's `"
                    + reason
                    + "`"));
    assertEquals(
        f.eventsIn(),
        f.processed() + f.late() + f.duplicates() + f.quarantined(),
        "every event processed, late, a duplicate or quarantined");
    return f;
  }

  private static int missing(Set<String> expected, Set<String> written) {
    return (int) expected.stream().filter(e -> !written.contains(e)).count();
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
    records.forEach(
        r -> out.add(r.value().get("partition").asInt() + "-" + r.value().get("offset").asLong()));
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
