package dev.streamform.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.teststreams.SourceLines;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The command line asks a model's kind ({@code DeclaredModel.kind()}: the planner's sealed {@code
 * ModelKind}, or its fixture half {@code FixtureKind}) what the model has, rather than branching on
 * the declaration's {@code windowed()} / {@code decides()} (issue 30; docs/decisions/0065), so that
 * a new kind is one new class that the compiler leads to, not a hunt for booleans.
 */
class ModelKindBranchesTest {
  private static final Path MAIN = Path.of("src/main/java");
  private static final Pattern BRANCH =
      Pattern.compile("\\b(windowed|decides)\\(\\)|instanceof (ModelKind|FixtureKind)\\b");

  @org.junit.jupiter.api.Test
  void noCommandBranchesOnTheKindsBooleans() throws IOException {
    List<String> branches = SourceLines.matching(MAIN.resolve("dev/streamform/cli"), BRANCH);
    assertTrue(
        branches.isEmpty(),
        "ask model.kind() (hasRevisionLedger(), hasDecisionLedger(), ...) or FixtureKind.of(model)"
            + " instead of branching on the kind's booleans:\n"
            + String.join("\n", branches));
  }
}
