package dev.streamform.cli;

import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.replay.ReplayOrders;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform replay-orders <project> --model M --orders N}: a scoring model's fixture in N
 * arrival orders that keep each partition's order, with repeats ({@code --duplicates}) and a
 * restore from a savepoint ({@code --restore-at}); decisions and final feature state compared with
 * the first order, decision by decision, and judged against the model's feature contract.
 */
@Command(
    name = "replay-orders",
    header = "Replays a scoring model's fixture in many arrival orders; judges decisions.",
    mixinStandardHelpOptions = true,
    description = {
      "Replays a fixture of a scoring model (decisions:) in N arrival orders: order 1 as written,"
          + " the others random interleavings of the partitions that keep each partition's own"
          + " order (the same logs). Compares every order's decisions and final feature state with"
          + " order 1's, prints each difference, and says whether the feature contract permits it:"
          + " as_of_occurrence permits none; latest_available permits different features, scores,"
          + " state revisions and decision ids, never different events decided or routes.",
      "With --duplicates every order carries repeats by the source's event_id (exact ones and"
          + " conflicts); each repeat must be dropped as a duplicate or dead-lettered as a"
          + " conflict, never decided nor applied to feature state. With --restore-at N every order"
          + " also runs on Flink in this JVM, stopped with a savepoint after N events and restored"
          + " from it; each restored run is compared with order 1 in the same way."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:every order agreed, or differed only as the contract permits",
      "1:a difference the contract does not permit, or the project has problems",
      "2:bad command line"
    })
final class ReplayOrdersCommand implements Callable<Integer> {

  @Parameters(paramLabel = "<project>", description = "the project folder")
  Path project;

  @Option(
      names = "--model",
      paramLabel = "M",
      description = "the scoring model (default: the project's only one)")
  String model;

  @Option(
      names = "--fixture",
      paramLabel = "F",
      description =
          "the fixture under fixtures/ (default: the first one of the model, else the first)")
  String fixture;

  @Option(
      names = "--orders",
      paramLabel = "N",
      required = true,
      description = "how many arrival orders")
  int orders;

  @Option(
      names = "--seed",
      paramLabel = "S",
      defaultValue = "1",
      description = "the seed of the orders (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(
      names = "--delayed-partition",
      description =
          "also one order per partition in which it delivers after every other partition (none"
              + " for a fixture of one partition)")
  boolean delayedPartition;

  @Option(
      names = "--duplicates",
      description =
          "every order also carries repeats of events by the source's event_id: exact repeats and"
              + " repeats with another payload (conflicts), before and after the restore point"
              + " (the middle without --restore-at); a repeat must make no decision")
  boolean duplicates;

  @Option(
      names = "--restore-at",
      paramLabel = "N",
      description =
          "also runs every order on embedded Flink stopped with a savepoint after N events (1 to"
              + " one less than the fixture's events) and restored from it (on --runner direct"
              + " too: the DirectRunner has no savepoints)")
  Integer restoreAt;

  @Mixin RunnerOptions runnerOptions;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (orders < 1) {
      throw new ParameterException(spec.commandLine(), "--orders must be at least 1");
    }
    if (restoreAt != null && restoreAt < 1) {
      throw new ParameterException(spec.commandLine(), "--restore-at must be at least 1");
    }
    PrintWriter err = spec.commandLine().getErr();
    RunnerChoice choice;
    try {
      choice = runnerOptions.choice();
    } catch (IllegalStateException e) {
      err.println("streamform replay-orders: " + e.getMessage());
      return 1;
    }
    Optional<Project> found = ProjectArgument.load(project, "replay-orders", err);
    if (found.isEmpty()) {
      return 1;
    }
    try {
      model = DecisionsModelArgument.name(spec.commandLine(), found.get(), model);
      var declared = DecisionsModelArgument.model(spec.commandLine(), found.get(), model);
      var f = DecisionsModelArgument.fixture(spec.commandLine(), found.get(), model, fixture);
      ReplayOrders.Options options =
          ReplayOrders.Options.orders(orders, seed)
              .withDelayedPartitions(delayedPartition)
              .withDuplicates(duplicates)
              .withRestoreAt(restoreAt == null ? 0 : restoreAt);
      ReplayOrders.Result result =
          ReplayOrders.run(
              declared, f, options, FixtureRunner.on(choice), spec.commandLine().getOut());
      return result.permitted() ? 0 : 1;
    } catch (InvalidProjectException e) {
      e.problems().forEach(p -> err.println(p));
      return 1;
    } catch (ReplayOrders.RestorePointOutOfRange e) {
      // a value of the command line, out of the fixture's range: a usage error like --orders 0
      throw new ParameterException(spec.commandLine(), e.getMessage());
    } catch (IllegalArgumentException e) {
      err.println("streamform replay-orders: " + e.getMessage());
      return 1;
    }
  }
}
