package dev.streamform.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.streamform.pipelines.kafka.KafkaConnection;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.sink.GenerationComparison;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform compare-generations <project> --model M --from A --to B --jdbc-url URL}: two
 * generations of a windowed model compared window by window on their projections' current values in
 * the revision ledger ({@link GenerationComparison}) — the check between a shadow run and a
 * promotion. Reads only.
 */
@Command(
    name = "compare-generations",
    header = "Compares two generations of a windowed model window by window.",
    mixinStandardHelpOptions = true,
    description = {
      "Compares two generations of a windowed model in the revision ledger, window by window (key"
          + " and window bounds): each window is 'equal' (the same current values, whatever the"
          + " revision numbers), 'different' (both sides shown: revision, status, values), or only"
          + " in one generation. Then a summary line with the counts. Held revisions are not"
          + " compared.",
      "Use it between a shadow run (streamform run --generation B --shadow) and a promotion"
          + " (streamform alias set --generation B).",
      "While a canary is in force (alias set --share), the canary's keys and the other keys are"
          + " reported apart — 'canary keys:' then 'other keys:', each with its windows and counts"
          + " — and a last line 'all keys: ...' counts both.",
      "With --bootstrap-servers (a kafka source), also reads the live run's late topic"
          + " (<model>.late) to its end offsets and prints how many of the too-late events it"
          + " holds are in generation B's revisions now: a shadow run on Kafka does not end, so"
          + " this is where a larger allowed lateness shows what it took in (a shadow run on files"
          + " prints the same line itself)."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:every window is in both generations with the same values",
      "1:a generation has no projection of the model, or the project or database cannot be used",
      "2:bad command line",
      "3:a window differs, or is in one generation only"
    })
final class CompareGenerationsCommand implements Callable<Integer> {
  /** Exit status when the generations differ (2 is a bad command line in every command). */
  static final int DIFFERENT = 3;

  @Parameters(paramLabel = "<project>", description = "the project folder")
  Path project;

  @Option(
      names = "--model",
      paramLabel = "M",
      description = "the windowed model (default: the project's only one)")
  String model;

  @Option(
      names = "--from",
      paramLabel = "A",
      required = true,
      description = "the generation compared from, usually the canonical one")
  int from;

  @Option(
      names = "--to",
      paramLabel = "B",
      required = true,
      description = "the generation compared to, usually the shadow one")
  int to;

  @Option(
      names = "--jdbc-url",
      paramLabel = "URL",
      required = true,
      description =
          "the ledger's database, e.g. jdbc:postgresql://127.0.0.1:5432/postgres"
              + " (no password in it)")
  String jdbcUrl;

  @Mixin JdbcCredentials credentials;

  @Mixin KafkaOptions.OnSource kafka;

  @Option(
      names = "--differences-only",
      description = "print only the windows that are not equal (the summary counts every window)")
  boolean differencesOnly;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (from < 1 || to < 1) {
      throw new ParameterException(
          spec.commandLine(),
          (from < 1 ? "--from" : "--to")
              + ": a generation is a whole number from 1, got "
              + (from < 1 ? from : to));
    }
    if (from == to) {
      throw new ParameterException(
          spec.commandLine(),
          "--from and --to are both generation " + from + ": compare two different generations");
    }
    Optional<ModelLedger> opened =
        ModelLedger.open(
            project,
            model,
            credentials.target(jdbcUrl, spec.commandLine()),
            false,
            "compare-generations",
            spec.commandLine());
    if (opened.isEmpty()) {
      return 1;
    }
    try (ModelLedger l = opened.get()) {
      boolean lateEvents = kafka.bootstrapServers != null || kafka.propertiesFile != null;
      if (lateEvents && l.model.source().connector() != Connector.KAFKA) {
        // refused before anything is printed: a bad command line prints no comparison
        throw new ParameterException(
            spec.commandLine(),
            "--bootstrap-servers: model '"
                + l.name()
                + "' reads a file source; a shadow run on files prints what became of the live"
                + " run's too-late events itself");
      }
      SortedMap<Integer, Integer> generations = l.ledger.generations(l.name());
      for (int g : new int[] {from, to}) {
        Optional<String> refused = l.noProjection(g, generations);
        if (refused.isPresent()) {
          err.println("streamform compare-generations: " + refused.get());
          return 1;
        }
      }
      OptionalInt canonical = l.ledger.canonicalGeneration(l.name());
      out.println(
          l.name()
              + ": generation "
              + from
              + " ("
              + standing(from, generations, canonical)
              + ") against generation "
              + to
              + " ("
              + standing(to, generations, canonical)
              + ")");
      GenerationComparison c = l.ledger.compare(l.name(), from, to);
      if (c.canary().isPresent()) {
        // the canary's keys read another generation than the others: each group apart
        out.println("canary: " + c.canary().get().describe());
        print("canary keys", c.canaryKeys(), out);
        print("other keys", c.otherKeys(), out);
        out.print("all keys: ");
      } else {
        for (GenerationComparison.Window w : c.windows()) {
          if (!differencesOnly || w.kind() != GenerationComparison.Kind.EQUAL) {
            out.println(line(w));
          }
        }
      }
      out.println(c.summary());
      if (lateEvents) {
        if (!lateEventsIn(l, out, err)) {
          return 1;
        }
      }
      return c.allEqual() ? 0 : DIFFERENT;
    } catch (SQLException e) {
      err.println("streamform compare-generations: " + ModelLedger.firstLine(e));
      return 1;
    }
  }

  /**
   * Which of the live run's too-late events (its late topic up to its end offsets now) are in
   * generation {@code to}'s revisions (docs/decisions/0062); false after printing why not.
   */
  private boolean lateEventsIn(ModelLedger l, PrintWriter out, PrintWriter err)
      throws SQLException {
    Optional<KafkaConnection> connection = kafka.connection(null, project, l.model.source(), err);
    if (connection.isEmpty()) {
      return false;
    }
    String topic = ModelSinks.of(l.model).lateTopic();
    List<JsonNode> rows;
    try {
      rows = LateEventsRecomputed.rows(connection.get(), topic);
    } catch (IOException | RuntimeException e) {
      err.println(
          "streamform compare-generations: cannot read the live run's too-late events: "
              + ModelLedger.firstLine(e));
      return false;
    }
    LateEventsRecomputed.Result r =
        LateEventsRecomputed.in(l.pool(), l.name(), to, l.model.keyColumns(), rows);
    out.println(
        LateEventsRecomputed.line(
            "topic " + topic + " at " + connection.get().bootstrapServers(), r, to));
    return true;
  }

  /** A group of windows (the canary's keys, or the others), then its counts. */
  private void print(String group, GenerationComparison c, PrintWriter out) {
    out.println(group + ":");
    for (GenerationComparison.Window w : c.windows()) {
      if (!differencesOnly || w.kind() != GenerationComparison.Kind.EQUAL) {
        out.println("  " + line(w));
      }
    }
    out.println(group + ": " + c.summary());
  }

  /** One window, e.g. {@code merchant_id=1 [10:00, 11:00): equal — revenue=26 orders=3 (...)}. */
  private String line(GenerationComparison.Window w) {
    String at =
        w.key().entrySet().stream()
                // as ledger show writes a key: quoted when a bare print would hide it
                .map(e -> e.getKey() + "=" + HistoryTable.keyValue(e.getValue()))
                .collect(Collectors.joining(" "))
            + " ["
            + w.windowStart()
            + ", "
            + w.windowEnd()
            + "): ";
    switch (w.kind()) {
      case EQUAL:
        return at
            + "equal — "
            + values(w.from().get().values())
            + " (generation "
            + from
            + " "
            + revision(w.from().get())
            + ", generation "
            + to
            + " "
            + revision(w.to().get())
            + ")";
      case DIFFERENT:
        return at
            + "different — generation "
            + from
            + ": "
            + side(w.from().get())
            + "; generation "
            + to
            + ": "
            + side(w.to().get());
      case ONLY_IN_FROM:
        return at + "only in generation " + from + " — " + side(w.from().get());
      default:
        return at + "only in generation " + to + " — " + side(w.to().get());
    }
  }

  private static String side(GenerationComparison.Side s) {
    return values(s.values()) + " (" + revision(s) + ")";
  }

  private static String revision(GenerationComparison.Side s) {
    return "revision " + s.revision() + " " + s.status();
  }

  private static String values(Map<String, Object> values) {
    return values.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(" "));
  }

  private static String standing(
      int generation, SortedMap<Integer, Integer> generations, OptionalInt canonical) {
    int n = generations.getOrDefault(generation, 0);
    boolean isCanonical = canonical.isPresent() && canonical.getAsInt() == generation;
    return (isCanonical ? "canonical, " : "") + n + (n == 1 ? " projection" : " projections");
  }
}
