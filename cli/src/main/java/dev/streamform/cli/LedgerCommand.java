package dev.streamform.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.policies.plan.PlanManifest;
import dev.streamform.policies.time.Timestamps;
import dev.streamform.sink.Ledger;
import dev.streamform.sink.LedgerVerification;
import dev.streamform.sink.WindowHistory;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform ledger verify|show}: a windowed model's revision ledger in PostgreSQL (written
 * by {@code streamform run --jdbc-url}), checked against docs/semantics.md §8's invariant or shown
 * as tables.
 */
@Command(
    name = "ledger",
    header = "A windowed model's revision ledger in PostgreSQL.",
    mixinStandardHelpOptions = true,
    description =
        "Reads a windowed model's revision ledger in PostgreSQL: verify it, or show a window's"
            + " revisions.",
    synopsisSubcommandLabel = "COMMAND",
    subcommands = {LedgerCommand.Verify.class, LedgerCommand.Show.class})
final class LedgerCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return Streamform.USAGE;
  }

  /** The options every ledger command takes. */
  static final class Target {
    @Parameters(paramLabel = "<project>", description = "the project folder")
    Path project;

    @Option(
        names = "--model",
        paramLabel = "M",
        description =
            "the windowed model (default: the project's only one; for the effects commands and"
                + " dispatch, its only one with effects:)")
    String model;

    @Option(
        names = "--jdbc-url",
        paramLabel = "URL",
        required = true,
        description =
            "the ledger's database, e.g. jdbc:postgresql://127.0.0.1:5432/postgres"
                + " (no password in it)")
    String jdbcUrl;

    @Mixin JdbcCredentials credentials;

    /**
     * The project loaded, the model found and the ledger opened for {@code command} (migrated first
     * when {@code migrate}); empty after saying why on standard error.
     */
    Optional<ModelLedger> open(boolean migrate, String command, CommandLine commandLine) {
      return open(migrate, command, commandLine, ModelLedger.Reads.REVISIONS);
    }

    /** As {@link #open(boolean, String, CommandLine)}, for a command that reads {@code reads}. */
    Optional<ModelLedger> open(
        boolean migrate, String command, CommandLine commandLine, ModelLedger.Reads reads) {
      return ModelLedger.open(
          project,
          model,
          credentials.target(jdbcUrl, commandLine),
          migrate,
          command,
          commandLine,
          reads);
    }
  }

  @Command(
      name = "verify",
      header =
          "Recomputes every projection from the ledger; exits 1 on a gap, mismatch or conflict.",
      mixinStandardHelpOptions = true,
      description = {
        "Recomputes every projection of the model (every generation) from its ledger rows and"
            + " checks that each window's revisions form one chain 1..n. Prints each defect, then"
            + " 'N projections, N revisions, N gaps, N mismatches, N conflicts'. A ledger written"
            + " by an older Streamform is brought up to date first, said in one line on standard"
            + " error."
      },
      exitCodeListHeading = "%nExit status:%n",
      exitCodeList = {
        "0:no gap, no mismatch, no conflict",
        "1:a defect (each listed, then the figures), or the project or database cannot be used,"
            + " also a schema streamform that is another application's or was changed outside"
            + " its migrations, or a ledger of an older Streamform this user may not migrate (one"
            + " line on standard error, no figures)",
        "2:bad command line"
      })
  static final class Verify implements Callable<Integer> {
    @Mixin Target target;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Optional<ModelLedger> opened = target.open(false, "ledger verify", spec.commandLine());
      if (opened.isEmpty()) {
        return 1;
      }
      try (ModelLedger l = opened.get()) {
        // a calendar window's zone is part of its logical_window_id (docs/semantics.md §6.24),
        // and each generation's is the one its recorded time policy names
        Map<Integer, Optional<String>> zones = identityZones(l);
        Optional<String> declared = declaredIdentityZone(l);
        LedgerVerification v =
            l.ledger.verify(l.name(), g -> zones.getOrDefault(g, declared), null);
        v.defects().forEach(out::println);
        if (v.held() > 0) {
          out.println(
              v.held()
                  + (v.held() == 1 ? " record is" : " records are")
                  + " held, waiting for a predecessor");
        }
        out.println(v.summary());
        return v.clean() ? 0 : 1;
      } catch (SQLException e) {
        err.println("streamform ledger verify: " + ModelLedger.firstLine(e));
        return 1;
      }
    }

    /**
     * The zone each generation's windows' identities hash, by the time policy the ledger recorded
     * for it (a generation may have moved its calendar windows to another zone, or made fixed
     * windows calendar ones); a generation without a readable recorded policy is left out, and then
     * the declaration's zone is taken.
     */
    private static Map<Integer, Optional<String>> identityZones(ModelLedger l) throws SQLException {
      Map<Integer, Optional<String>> zones = new LinkedHashMap<>();
      for (int generation : l.ledger.generations(l.name()).keySet()) {
        Optional<Ledger.RecordedPolicy> recorded = l.ledger.recordedPolicy(l.name(), generation);
        if (recorded.isEmpty()) {
          continue;
        }
        try {
          zones.put(
              generation, PlanManifest.identityZone(POLICY_JSON.readTree(recorded.get().policy())));
        } catch (JsonProcessingException e) {
          // not JSON: the declaration's zone, as for a ledger that recorded no policy
        }
      }
      return zones;
    }

    private static Optional<String> declaredIdentityZone(ModelLedger l) {
      return l.model.model().window().filter(w -> w.isCalendar()).map(w -> w.zoneOrUtc().getId());
    }

    private static final ObjectMapper POLICY_JSON = new ObjectMapper();
  }

  @Command(
      name = "show",
      header = "Shows a window's revision history as a table.",
      mixinStandardHelpOptions = true,
      description = {
        "Prints the revision history of the model's windows, one table per window and generation:"
            + " each revision with its predecessor, status, values, events (offsets per partition),"
            + " digest and when it was recorded; then what is held and what was refused."
      },
      exitCodeListHeading = "%nExit status:%n",
      exitCodeList = {
        "0:printed",
        "1:no window matches, or the project or database cannot be used",
        "2:bad command line"
      })
  static final class Show implements Callable<Integer> {
    @Mixin Target target;

    @Option(
        names = "--window-key",
        paramLabel = "COLUMN=VALUE",
        description =
            "only windows whose key column has this value, e.g. merchant_id=7 (repeatable); a"
                + " value in quotes is a JSON string, as the table's heading prints one, e.g."
                + " shop=\" spaced \"")
    List<String> windowKey = List.of();

    @Option(
        names = "--window-start",
        paramLabel = "TIME",
        description = "only the window starting at this RFC 3339 time, e.g. 2026-08-30T10:00:00Z")
    String windowStart;

    @Option(names = "--generation", paramLabel = "N", description = "only this generation")
    Integer generation;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Ledger.Filter filter = filter();
      Optional<ModelLedger> opened = target.open(false, "ledger show", spec.commandLine());
      if (opened.isEmpty()) {
        return 1;
      }
      try (ModelLedger l = opened.get()) {
        for (String column : filter.keyEquals().keySet()) {
          if (!l.model.model().key().contains(column)) {
            throw new ParameterException(
                spec.commandLine(),
                "--window-key: '"
                    + column
                    + "' is not a key column of model "
                    + l.name()
                    + " (key: "
                    + l.model.model().key()
                    + ")");
          }
        }
        if (generation != null) {
          Optional<String> refused = l.noProjection(generation);
          if (refused.isPresent()) {
            err.println("streamform ledger show: " + refused.get());
            return 1;
          }
        }
        List<WindowHistory> windows = l.ledger.history(l.name(), filter);
        if (windows.isEmpty()) {
          err.println("streamform ledger show: no window of model " + l.name() + " matches");
          return 1;
        }
        boolean first = true;
        for (WindowHistory w : windows) {
          if (!first) {
            out.println();
          }
          first = false;
          HistoryTable.print(w, out);
        }
        return 0;
      } catch (SQLException e) {
        err.println("streamform ledger show: " + ModelLedger.firstLine(e));
        return 1;
      }
    }

    private Ledger.Filter filter() {
      if (generation != null && generation < 1) {
        throw new ParameterException(
            spec.commandLine(), "--generation: a whole number from 1, got " + generation);
      }
      Map<String, String> keys = new LinkedHashMap<>();
      for (String pair : windowKey) {
        int eq = pair.indexOf('=');
        if (eq <= 0) {
          throw new ParameterException(
              spec.commandLine(),
              "--window-key: expected COLUMN=VALUE, e.g. merchant_id=7, got '" + pair + "'");
        }
        try {
          keys.put(pair.substring(0, eq), HistoryTable.keyValueGiven(pair.substring(eq + 1)));
        } catch (IllegalArgumentException e) {
          throw new ParameterException(
              spec.commandLine(), "--window-key: " + pair + ": " + e.getMessage());
        }
      }
      Instant start = null;
      if (windowStart != null) {
        try {
          start = Timestamps.parse(windowStart);
        } catch (IllegalArgumentException e) {
          throw new ParameterException(spec.commandLine(), "--window-start: " + e.getMessage());
        }
      }
      return new Ledger.Filter(keys, start, generation);
    }
  }
}
