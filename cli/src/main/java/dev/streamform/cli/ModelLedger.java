package dev.streamform.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.core.text.Counts;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.Ledger;
import dev.streamform.sink.LedgerSchema;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Optional;
import java.util.SortedMap;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The ledger of a project's windowed model, opened for one command: the project loaded, the model
 * checked to be windowed (and, for a command acting on effects, to declare some), the database
 * reached. Each failure is one line on stderr.
 */
final class ModelLedger implements AutoCloseable {
  final DeclaredModel model;
  final Ledger ledger;
  private final HikariDataSource pool;
  private final String database;
  private final boolean setUp;

  private ModelLedger(DeclaredModel model, HikariDataSource pool, String database, boolean setUp) {
    this.model = model;
    this.pool = pool;
    this.database = database;
    this.setUp = setUp;
    this.ledger = Ledger.at(pool);
  }

  /** True when the database had no ledger and opening it (with {@code migrate}) set one up. */
  boolean setUpNow() {
    return setUp;
  }

  /**
   * Opens the ledger of {@code modelName} in {@code project} at {@code target}; with {@code
   * migrate}, creates or migrates the schema first, else requires it to exist. Empty after printing
   * why not.
   */
  static Optional<ModelLedger> open(
      Path project,
      String modelName,
      JdbcTarget target,
      boolean migrate,
      String command,
      CommandLine commandLine) {
    return open(project, modelName, target, migrate, command, commandLine, Reads.REVISIONS);
  }

  /**
   * What a command reads of a windowed model: its revisions (any windowed model), or its effects
   * (without {@code --model}, the project's only windowed model declaring effects), or its effects
   * to act on them (a model declaring none is refused, as {@code dispatch} refuses it).
   */
  enum Reads {
    REVISIONS,
    EFFECTS,
    DECLARED_EFFECTS;

    boolean effects() {
      return this != REVISIONS;
    }
  }

  /**
   * As {@link #open(Path, String, JdbcTarget, boolean, String, CommandLine)}, for {@code reads}.
   */
  static Optional<ModelLedger> open(
      Path project,
      String modelName,
      JdbcTarget target,
      boolean migrate,
      String command,
      CommandLine commandLine,
      Reads reads) {
    PrintWriter err = commandLine.getErr();
    Optional<Project> loaded = ProjectArgument.load(project, command, err);
    if (loaded.isEmpty()) {
      return Optional.empty();
    }
    Project declared = loaded.get();
    if (reads.effects()
        && modelName == null
        && declared.models().keySet().stream()
            .noneMatch(
                m ->
                    DeclaredModel.of(declared, m).kind().hasRevisionLedger()
                        && !declared.models().get(m).effects().isEmpty())) {
      // as a model named without effects is refused: there is nothing to act on, not a bad command
      // line (the commands' help lists it under exit 1)
      return refuse(
          err,
          command,
          "the project has no windowed model with effects (a model with window: and effects: in"
              + " streamform.yml)"
              + (declared.models().isEmpty()
                  ? ""
                  : "; its models: " + String.join(", ", declared.models().keySet())),
          null);
    }
    modelName =
        ProjectArgument.model(
            commandLine,
            declared,
            modelName,
            reads.effects() ? "windowed model with effects" : "windowed model",
            reads.effects() ? "windowed models with effects" : "windowed models",
            reads.effects() ? "window: and effects:" : "window:",
            m ->
                DeclaredModel.of(declared, m).kind().hasRevisionLedger()
                    && (!reads.effects() || !declared.models().get(m).effects().isEmpty()));
    DeclaredModel model;
    try {
      model = DeclaredModel.of(declared, modelName);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(commandLine, "--model: " + e.getMessage());
    }
    if (!model.kind().hasRevisionLedger()) {
      return refuse(err, command, notWindowed(model), null);
    }
    if (reads == Reads.DECLARED_EFFECTS && model.model().effects().isEmpty()) {
      // before the database: nothing of a model without effects is paused, resumed or delivered
      return refuse(
          err,
          command,
          "model '" + modelName + "' declares no effects (effects: in streamform.yml)",
          null);
    }
    HikariDataSource pool = target.openPool("streamform-" + command.replace(' ', '-'), 2, 10_000);
    boolean setUp = false;
    try {
      if (migrate) {
        setUp = !Ledger.at(pool).exists();
        LedgerSchema.migrate(pool, target.describe());
      } else {
        Optional<String> refused = toRead(pool, target.describe(), command, err);
        if (refused.isPresent()) {
          return refuse(err, command, refused.get(), pool);
        }
      }
    } catch (LedgerSchema.Unusable e) {
      return refuse(err, command, e.getMessage(), pool);
    } catch (SQLException | RuntimeException e) {
      return refuse(
          err, command, "cannot use the database " + target.describe() + ": " + firstLine(e), pool);
    }
    return Optional.of(new ModelLedger(model, pool, target.describe(), setUp));
  }

  /**
   * A command's refusal to open the ledger: {@code why} in one line on {@code err}, after {@code
   * streamform <command>: }, and the pool closed (null before it is opened).
   */
  private static Optional<ModelLedger> refuse(
      PrintWriter err, String command, String why, HikariDataSource pool) {
    err.println("streamform " + command + ": " + why);
    if (pool != null) {
      pool.close();
    }
    return Optional.empty();
  }

  /**
   * Why a command that reads a windowed model's revision ledger cannot read {@code model}'s: a
   * scoring model's decisions are in the decision ledger, which the decisions commands read; an
   * upsert model has a changelog and no ledger.
   */
  static String notWindowed(DeclaredModel model) {
    String name = model.model().name();
    if (model.kind().hasDecisionLedger()) {
      return "model '"
          + name
          + "' is "
          + model.kind().description()
          + ", not a windowed model: its ledger is the decision ledger, read with streamform"
          + " decisions show|verify --model "
          + name;
    }
    return "model '"
        + name
        + "' is not windowed (no window: in streamform.yml): it has a changelog, not revisions,"
        + " and no ledger";
  }

  /**
   * Opens the ledger in {@code database} for a command that only reads it: its schema checked (ADR
   * 0136), refused when there is none — a reading command never creates it, so a database without a
   * ledger stays as it was — and brought up to date when an older Streamform wrote it (ADR 0144).
   * Empty when it can be read, else the refusal to print after {@code streamform <command>: }.
   *
   * @throws LedgerSchema.Unusable when the schema is not Streamform's or was changed by hand
   */
  static Optional<String> toRead(
      HikariDataSource pool, String database, String command, PrintWriter err) throws SQLException {
    Optional<LedgerSchema.Pending> pending = LedgerSchema.check(pool, database);
    if (!Ledger.at(pool).exists()) {
      return Optional.of(
          "no Streamform ledger in "
              + database
              + " (streamform run --jdbc-url creates it)"
              + (command.equals("effects resume") ? ": nothing is paused there" : ""));
    }
    return upToDate(pool, database, pending, command, err);
  }

  /**
   * Brings a ledger that an older Streamform wrote up to date before a command that only reads it
   * (ADR 0144): its queries name the tables and columns of this Streamform's migrations. {@code
   * pending} is what the schema check found pending (Flyway's history is read once for both). Says
   * so on {@code err} when it migrated; empty then, and when nothing was pending. A user who may
   * not migrate gets, instead of the database's permission error, the refusal to print: the
   * database, the versions and who can bring it up to date.
   */
  private static Optional<String> upToDate(
      HikariDataSource pool,
      String database,
      Optional<LedgerSchema.Pending> pending,
      String command,
      PrintWriter err)
      throws SQLException {
    if (pending.isEmpty()) {
      return Optional.empty();
    }
    int ran;
    try {
      ran = LedgerSchema.bringUpToDate(pool, database); // checked just now: migrate, check again
    } catch (RuntimeException | SQLException e) {
      if (!permissionDenied(e)) {
        throw e;
      }
      LedgerSchema.Pending p = pending.get();
      return Optional.of(
          "the ledger in "
              + database
              + " was written by an older Streamform and awaits "
              + Counts.of(p.count(), "migration")
              + " (version "
              + p.from()
              + " to "
              + p.to()
              + ") that this user may not run ("
              + rootLine(e)
              + "): run this command once as "
              + ownerOfTheSchema(pool)
              + ", which brings the ledger up to date");
    }
    if (ran > 0) { // 0: another command brought it up to date meanwhile
      err.println(
          "streamform "
              + command
              + ": brought the ledger in "
              + database
              + " up to date ("
              + Counts.of(ran, "migration")
              + ")");
    }
    return Optional.empty();
  }

  /** PostgreSQL's insufficient_privilege anywhere in {@code e}'s causes. */
  private static boolean permissionDenied(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql && "42501".equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /** "the owner of schema streamform (--jdbc-user NAME)", or less when it cannot be read. */
  private static String ownerOfTheSchema(HikariDataSource pool) {
    String who = "the owner of schema " + LedgerSchema.SCHEMA;
    try (java.sql.Connection c = pool.getConnection();
        java.sql.PreparedStatement s =
            c.prepareStatement(
                "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = ?")) {
      s.setString(1, LedgerSchema.SCHEMA);
      try (java.sql.ResultSet rs = s.executeQuery()) {
        return rs.next() ? who + " (--jdbc-user " + rs.getString(1) + ")" : who;
      }
    } catch (SQLException e) {
      return who;
    }
  }

  /** The database, for the effect ledger and the dispatcher. */
  javax.sql.DataSource pool() {
    return pool;
  }

  /** The database as messages name it ({@link JdbcTarget#describe()}). */
  String database() {
    return database;
  }

  String name() {
    return model.model().name();
  }

  /**
   * Empty when {@code generation} has a projection of the model in this ledger, else the refusal of
   * a command that reads that generation (compare-generations, gates): "generation 9 of m has no
   * projection in this ledger (generations with projections: 1 (6), 2 (7))".
   */
  Optional<String> noProjection(int generation) throws SQLException {
    return noProjection(generation, ledger.generations(name()));
  }

  /** As {@link #noProjection(int)}, given the ledger's projections per generation of the model. */
  Optional<String> noProjection(int generation, SortedMap<Integer, Integer> generations) {
    if (generations.containsKey(generation)) {
      return Optional.empty();
    }
    return Optional.of(
        "generation "
            + generation
            + " of "
            + name()
            + " has no projection in this ledger ("
            + (generations.isEmpty()
                ? "no generation has any yet"
                : "generations with projections: "
                    + generations.entrySet().stream()
                        .map(e -> e.getKey() + " (" + e.getValue() + ")")
                        .collect(Collectors.joining(", ")))
            + ")");
  }

  /**
   * The first line of the innermost cause of {@code e}; for a refused connection, with the fix of a
   * command whose only server is the database.
   */
  static String firstLine(Throwable e) {
    Throwable root = root(e);
    String first = rootLine(e);
    if (root instanceof java.net.ConnectException) {
      // nobody listens there: the commonest first mistake, with its commonest fix
      return first
          + " — is PostgreSQL running there? Start a local one with runners-config/bin/postgres"
          + " start, or give the right --jdbc-url";
    }
    if (root instanceof java.net.UnknownHostException) {
      // the JDK says only the name
      return "no host is named " + root.getMessage() + "; give the right host in --jdbc-url";
    }
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.sql.SQLException q && q.getSQLState() != null) {
        String said = String.valueOf(q.getMessage());
        if (q.getSQLState().equals("28000") && said.contains("role \"")) {
          return first
              + " — give the database user with --jdbc-user (without it, the user is your login"
              + " name)";
        }
        if (q.getSQLState().equals("3D000")) {
          return first
              + " — create it (CREATE DATABASE), or name one that exists at the end of"
              + " --jdbc-url";
        }
      }
    }
    return first;
  }

  /** The first line of the innermost cause of {@code e}, as it says it. */
  static String rootLine(Throwable e) {
    String message = String.valueOf(root(e).getMessage());
    int eol = message.indexOf('\n');
    return eol < 0 ? message : message.substring(0, eol);
  }

  private static Throwable root(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  @Override
  public void close() {
    pool.close();
  }
}
