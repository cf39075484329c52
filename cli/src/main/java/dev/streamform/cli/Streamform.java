package dev.streamform.cli;

import dev.streamform.pipelines.kafka.KafkaRefusedException;
import dev.streamform.planner.UnbuildableDeclaration;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.commons.text.similarity.LevenshteinDistance;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code streamform} command line. Every command has {@code --help}; a mistake in how a command
 * is called gives one line naming it and pointing at {@code --help} (exit 2), never a stack trace.
 * A new command is a class annotated with {@link Command} added to {@code subcommands} below.
 */
@Command(
    name = "streamform",
    mixinStandardHelpOptions = true,
    versionProvider = Streamform.Version.class,
    description = "Declared event time for Apache Beam pipelines.",
    synopsisSubcommandLabel = "COMMAND",
    subcommands = {
      CheckCommand.class,
      TestCommand.class,
      ExplainCommand.class,
      InspectPlanCommand.class,
      PlanCommand.class,
      RunCommand.class,
      ProduceCommand.class,
      ConsumeCommand.class,
      FuzzCommand.class,
      LedgerCommand.class,
      AliasCommand.class,
      CompareGenerationsCommand.class,
      DispatchCommand.class,
      EffectsCommand.class,
      ProviderCommand.class,
      GatesCommand.class,
      ReplayOrdersCommand.class,
      DecisionsCommand.class,
      // "streamform help check" prints check's help, as git and kubectl do
      picocli.CommandLine.HelpCommand.class
    })
public final class Streamform implements Callable<Integer> {
  /** Exit status for a command line that could not be understood. */
  public static final int USAGE = 2;

  /** Columns of {@code --help}: each command's one-line header fits beside its name. */
  static final int USAGE_WIDTH = 100;

  @Spec CommandSpec spec;

  /** Runs the command line and exits with its status. */
  public static void main(String... args) {
    // first: an OutOfMemoryError in any thread ends the run in one line, exit 1 (ADR 0152)
    OutOfMemory.install();
    BeamWarmUp.startFor(args);
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    System.exit(run(out, err, args));
  }

  /** Runs the command line with the given streams and returns its exit status. */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    return run(CommandLine.defaultFactory(), out, err, args);
  }

  /**
   * As {@link #run(PrintWriter, PrintWriter, String...)}, with the commands made by {@code factory}
   * (a test hands in a command it can stop, e.g. {@code test --watch}).
   */
  static int run(CommandLine.IFactory factory, PrintWriter out, PrintWriter err, String... args) {
    CommandLine commandLine =
        new CommandLine(new Streamform(), factory)
            .setOut(out)
            .setErr(err)
            .setUsageHelpWidth(USAGE_WIDTH)
            .setParameterExceptionHandler((e, ignored) -> usageError(e, err))
            .setExecutionStrategy(
                parsed -> {
                  refuseEmptyPaths(parsed);
                  return new CommandLine.RunLast().execute(parsed);
                })
            .setExecutionExceptionHandler(
                (e, command, parsed) ->
                    internalError(
                        e,
                        // the command as typed: "alias set", not "set"
                        command.getCommandSpec().qualifiedName().replaceFirst("^streamform ?", ""),
                        err));
    versionEverywhere(commandLine, new Version());
    int status = commandLine.execute(args);
    out.flush();
    err.flush();
    return status;
  }

  /**
   * Gives every command the version {@code streamform --version} prints: each one's help lists
   * {@code -V, --version} (mixinStandardHelpOptions), which without a provider printed nothing.
   */
  private static void versionEverywhere(CommandLine at, IVersionProvider version) {
    for (CommandLine sub : at.getSubcommands().values()) {
      if (sub.getCommandSpec().versionProvider() == null) {
        sub.getCommandSpec().versionProvider(version);
      }
      versionEverywhere(sub, version);
    }
  }

  /**
   * Refuses an empty value for an option or argument that names a file or folder ({@code
   * --output=}, or a shell variable never set): to Java an empty path is the working folder, where
   * {@code run --output=} wrote its outputs; and for one of {@link #NOT_EMPTY}. Said as a bad
   * command line, naming the option.
   */
  static void refuseEmptyPaths(CommandLine.ParseResult parsed) {
    for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
      for (CommandLine.Model.ArgSpec arg : p.matchedArgs()) {
        String named =
            arg instanceof CommandLine.Model.OptionSpec o ? NOT_EMPTY.get(o.longestName()) : null;
        if (!namesPaths(arg) && named == null
            || arg.originalStringValues().stream().noneMatch(String::isBlank)) {
          continue;
        }
        String label = arg.paramLabel();
        boolean folder = label.toUpperCase(java.util.Locale.ROOT).contains("DIR");
        String what =
            named != null
                ? named
                : folder ? "a folder" : label.contains("path") ? "a path" : "a file";
        if (arg instanceof CommandLine.Model.OptionSpec option) {
          String name = option.longestName();
          throw new ParameterException(
              p.commandSpec().commandLine(),
              name
                  + " is empty: name "
                  + what
                  + " ("
                  + name
                  + " "
                  + label
                  + ")"
                  + (option.required() ? "" : ", or leave out " + name));
        }
        throw new ParameterException(
            p.commandSpec().commandLine(), "an empty " + label + ": name " + what);
      }
    }
  }

  /**
   * Options that name no file but take no empty value either, with what the value names: empty,
   * {@code --bootstrap-servers=} reached Kafka's client ("You must set either bootstrap.servers
   * ..."), {@code --state-backend=} was called a Flink option on the DirectRunner, {@code
   * --flink-master=} was tried as a cluster ("Connection refused by — is the Flink cluster at
   * running?"), {@code --select=} matched no fixture and {@code --state-backend-storage-path=} was
   * taken as not given.
   */
  private static final Map<String, String> NOT_EMPTY =
      Map.ofEntries(
          Map.entry("--bootstrap-servers", "the Kafka brokers"),
          Map.entry("--state-backend", "a state backend"),
          Map.entry("--state-backend-storage-path", "a folder"),
          Map.entry("--from-savepoint", "a savepoint"),
          Map.entry("--flink-master", "a Flink cluster's REST address"),
          Map.entry("--select", "a fixture name or pattern"),
          Map.entry("--jdbc-url", "a database"),
          Map.entry("--jdbc-user", "a database user"),
          Map.entry("--provider-url", "the provider's address"),
          Map.entry("--profile", "a runner profile"),
          Map.entry("--name", "this dispatcher"),
          Map.entry("--by", "who"),
          Map.entry("--reason", "why"));

  private static boolean namesPaths(CommandLine.Model.ArgSpec arg) {
    if (arg.type() == Path.class) {
      return true;
    }
    for (Class<?> t : arg.auxiliaryTypes()) {
      if (t == Path.class) {
        return true;
      }
    }
    return false;
  }

  /** Without a command: show what there is to run. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return USAGE;
  }

  /**
   * Options named as the user typed them, for a usage error: {@code --a 1}, {@code --a 1 and --b
   * 2}, {@code --a 1, --b 2 and --c 3} (name to value, in the map's order).
   */
  static String typed(Map<String, Object> options) {
    List<String> items =
        options.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList();
    int last = items.size() - 1;
    return last == 0
        ? items.get(0)
        : String.join(", ", items.subList(0, last)) + " and " + items.get(last);
  }

  private static int usageError(ParameterException e, PrintWriter err) {
    CommandLine at = e.getCommandLine();
    String name = at.getCommandSpec().qualifiedName();
    err.println(name + ": " + describe(e) + " — see '" + name + " --help'");
    return USAGE;
  }

  /** picocli's words for a number option given something else, which name Java's types. */
  private static final java.util.regex.Pattern NOT_A_NUMBER =
      java.util.regex.Pattern.compile(
          "Invalid value for (?:option|positional parameter) '([^']+)': '(.*)' is not an?"
              + " (int|long|double|float)",
          java.util.regex.Pattern.DOTALL);

  /**
   * The least value of a whole-number option, for its message when given something else: a count or
   * generation is at least 1, not Java's -2147483648 (an option not here takes any int or long, a
   * seed). Each command checks the range of a value it parses ({@link #wholeNumber}).
   */
  private static final Map<String, Long> WHOLE_FROM =
      Map.ofEntries(
          Map.entry("--generation", 1L),
          Map.entry("--from", 1L),
          Map.entry("--to", 1L),
          Map.entry("--limit", 1L),
          Map.entry("--compensation", 1L),
          Map.entry("--traces", 1L),
          Map.entry("--parallelism", 1L),
          Map.entry("--batch", 1L),
          Map.entry("--partitions", 1L),
          Map.entry("--orders", 1L),
          Map.entry("--restore-at", 1L),
          Map.entry("--port", 0L),
          Map.entry("--lose-answers", 0L),
          Map.entry("--restarts", 0L),
          Map.entry("--restart-delay", 0L));

  /** What a number option takes, said where its value is not one, by its name and type. */
  static String numberRange(String option, boolean isLong) {
    switch (option) {
      case "--port":
        return "a whole number from 0 to 65535";
      case "--checkpointing-interval":
        return "a whole number of milliseconds, positive, or -1 for none";
      case "--tolerance":
        return "a number from 0, e.g. 1e-9";
      default:
        Long from = WHOLE_FROM.get(option);
        return "a whole number from "
            + (from != null ? from : isLong ? Long.MIN_VALUE : Integer.MIN_VALUE)
            + " to "
            + (isLong ? Long.MAX_VALUE : Integer.MAX_VALUE);
    }
  }

  /**
   * Refuses a whole-number option's {@code value} below {@code from} as picocli refuses one that is
   * no number: "--traces: '-1' is not a whole number from 1 to 2147483647".
   */
  static void wholeNumber(CommandSpec spec, String option, int value, int from) {
    if (value < from) {
      throw new ParameterException(
          spec.commandLine(), option + ": '" + value + "' is not " + numberRange(option, false));
    }
  }

  private static String describe(ParameterException e) {
    if (!(e instanceof UnmatchedArgumentException)) {
      java.util.regex.Matcher m = NOT_A_NUMBER.matcher(String.valueOf(e.getMessage()));
      if (m.matches()) {
        String type = m.group(3);
        return m.group(1)
            + ": '"
            + m.group(2)
            + "' is not "
            + (type.equals("double") || type.equals("float")
                ? m.group(1).equals("--tolerance") ? numberRange("--tolerance", false) : "a number"
                : numberRange(m.group(1), type.equals("long")));
      }
      return e.getMessage();
    }
    UnmatchedArgumentException unmatched = (UnmatchedArgumentException) e;
    List<String> args = unmatched.getUnmatched();
    String arg = args.isEmpty() ? "" : args.get(0);
    boolean hasCommands = !e.getCommandLine().getSubcommands().isEmpty();
    String what =
        arg.startsWith("-")
            ? "unknown option '" + arg + "'"
            : hasCommands ? "unknown command '" + arg + "'" : "unexpected argument '" + arg + "'";
    // the commands (or options) within two edits of what was typed, nearest first ('tset' ->
    // test, 'chek' -> check); else picocli's own suggestions, which are generous ('chek' -> check
    // or dispatch) and miss a swap of two letters ('tset' -> effects)
    CommandSpec spec = e.getCommandLine().getCommandSpec();
    Collection<String> names =
        arg.startsWith("-") ? spec.optionsMap().keySet() : spec.subcommands().keySet();
    String typed = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
    List<String> suggestions =
        names.stream()
            .filter(n -> !n.equals(typed) && edits(n, typed) <= 2)
            .sorted(Comparator.comparingInt((String n) -> edits(n, typed)).thenComparing(n -> n))
            .limit(3)
            .toList();
    if (suggestions.isEmpty()) {
      suggestions = unmatched.getSuggestions();
    }
    return suggestions.isEmpty()
        ? what
        : what + " (did you mean '" + String.join("' or '", suggestions) + "'?)";
  }

  private static final LevenshteinDistance EDITS = new LevenshteinDistance(2);

  /** The Levenshtein distance of {@code a} and {@code b}; beyond 2, {@code Integer.MAX_VALUE}. */
  static int edits(String a, String b) {
    int d = EDITS.apply(a, b);
    return d < 0 ? Integer.MAX_VALUE : d;
  }

  static int internalError(Exception e, String command, PrintWriter err) {
    OutOfMemoryError oom = OutOfMemory.find(e);
    if (oom != null) {
      err.flush();
      OutOfMemory.halt(null, oom); // one line, exit 1: not an internal error (ADR 0152)
    }
    String prefix =
        "streamform"
            + (command == null || command.isEmpty() || command.equals("streamform")
                ? ""
                : " " + command);
    if (e instanceof UnbuildableDeclaration) {
      // not a bug: a declaration check accepts that cannot be built here (a scorer class)
      err.println(prefix + ": " + e.getMessage());
      return 1;
    }
    if (e instanceof KafkaRefusedException) {
      // not a bug: the cluster is down or refused the connection, said in one line, by the
      // command as its other messages are
      err.println(prefix + ": " + e.getMessage());
      return 1;
    }
    err.println(
        "streamform: internal error: "
            + e
            + " (set STREAMFORM_DEBUG=1 for the stack trace, and please report it)");
    if (System.getenv("STREAMFORM_DEBUG") != null) {
      e.printStackTrace(err);
    }
    return 1;
  }

  /** The version this build was made from. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties properties = new Properties();
      try (InputStream in = Streamform.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          properties.load(in);
        }
      }
      return new String[] {
        "streamform " + properties.getProperty("version", "(development build)")
      };
    }
  }
}
