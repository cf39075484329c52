package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import dev.streamform.pipelines.file.FileModelRun;
import dev.streamform.pipelines.kafka.KafkaConnection;
import dev.streamform.pipelines.kafka.KafkaModelPipeline;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.DeclaredPipeline;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What is tested is what runs (issue 30): for every model of the project's fixture projects and
 * examples, the pipeline a fixture builds ({@link FixtureRunner}) and the one {@code run} builds
 * ({@link FileModelRun} for a file source, {@link KafkaModelPipeline} for a Kafka source; built,
 * walked, not run) apply the same composite, {@link DeclaredPipeline}, with the same steps inside:
 * each step's name under the composite and its transform's class, in topological order (but the
 * inside of Beam's {@code Create}, which expands by its element count: the partitions held).
 */
class OnePipelineTest {
  @TempDir Path tmp;

  static Stream<Path> projects() throws Exception {
    List<Path> all = new ArrayList<>();
    for (String root : List.of("../test-streams/fixtures", "../examples")) {
      try (Stream<Path> files = Files.walk(Path.of(root))) {
        files
            .filter(f -> f.getFileName().toString().equals("streamform.yml"))
            .map(Path::getParent)
            .sorted()
            .forEach(all::add);
      }
    }
    return all.stream();
  }

  @ParameterizedTest
  @MethodSource("projects")
  void fixturesAndRunBuildTheSameComposite(Path dir) throws Exception {
    Project project = Project.load(dir);
    List<String> checked = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir.resolve("fixtures"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yml")).sorted().toList()) {
        Fixture fixture = Fixture.load(project, file);
        if (checked.contains(fixture.model())) {
          continue; // the hierarchy is the model's, whatever the fixture's events
        }
        checked.add(fixture.model());
        DeclaredModel model = DeclaredModel.of(project, fixture.model());
        Pipeline fixturePipeline =
            FixtureRunner.on(RunnerChoice.direct())
                .built(FixtureRunner.Case.of(model, fixture), tmp.resolve("outputs"));
        Pipeline runPipeline = runPipeline(model, dir);
        List<String> fixtureSteps = compositeSteps(fixturePipeline);
        List<String> runSteps = compositeSteps(runPipeline);
        assertThat(dir + " " + fixture.model(), fixtureSteps, not(empty()));
        assertThat(
            dir + " " + fixture.model() + ": " + firstDifference(runSteps, fixtureSteps),
            runSteps,
            equalTo(fixtureSteps));
        if (model.deduplicate().isPresent()) {
          assertThat(fixtureSteps, hasItem("Duplicates (Deduplicate)"));
        }
      }
    }
    assertThat(dir + " has a fixture per model", checked, not(empty()));
  }

  /** Where the steps of run and of a fixture part, as a reader would look for it. */
  private static String firstDifference(List<String> run, List<String> fixture) {
    for (int i = 0; i < Math.max(run.size(), fixture.size()); i++) {
      String r = i < run.size() ? run.get(i) : "(nothing)";
      String f = i < fixture.size() ? fixture.get(i) : "(nothing)";
      if (!r.equals(f)) {
        return "step " + (i + 1) + " of the composite: run applies " + r + ", the fixture " + f;
      }
    }
    return "the same steps";
  }

  /** The pipeline {@code streamform run} builds for {@code model} on the DirectRunner. */
  private static Pipeline runPipeline(DeclaredModel model, Path dir) throws Exception {
    if (model.source().connector() == Connector.FILE) {
      return FileModelRun.of(model, dir).built(PipelineOptionsFactory.create());
    }
    // as run on Kafka: the clock holds each of the topic's partitions from the start (here the
    // declared count; run reads it from the topic)
    List<Integer> partitions = new ArrayList<>();
    for (int i = 0; i < model.source().partitions().orElse(1); i++) {
      partitions.add(i);
    }
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    KafkaModelPipeline.build(
        p, model, KafkaConnection.plaintext("127.0.0.1:9"), null, null, partitions);
    return p;
  }

  /**
   * Every step inside the one {@link DeclaredPipeline} of {@code p}, as {@code name (class)} with
   * the name under the composite, in topological order; fails when there is not exactly one.
   */
  static List<String> compositeSteps(Pipeline p) {
    List<String> steps = new ArrayList<>();
    List<String> composites = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          private String prefix;

          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            visit(node);
            return CompositeBehavior.ENTER_TRANSFORM;
          }

          @Override
          public void visitPrimitiveTransform(TransformHierarchy.Node node) {
            visit(node);
          }

          private void visit(TransformHierarchy.Node node) {
            if (node.isRootNode()) {
              return;
            }
            if (node.getTransform() instanceof DeclaredPipeline) {
              composites.add(node.getFullName());
              prefix = node.getFullName() + "/";
            } else if (prefix != null
                && node.getFullName().startsWith(prefix)
                && !node.getFullName().contains("/Create.Values/")) {
              // (Beam's Create expands by its element count: here the number of partitions)
              steps.add(
                  node.getFullName().substring(prefix.length())
                      + " ("
                      + node.getTransform().getClass().getSimpleName().replace("AutoValue_", "")
                      + ")");
            }
          }
        });
    assertThat("one model composite in the pipeline", composites.size(), equalTo(1));
    return steps;
  }
}
