package dev.streamform.pipelines;

import dev.streamform.pipelines.kafka.KafkaModelPipeline;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.DeclaredPipeline;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.plan.PlanManifest;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.decisions.ScoreEvents;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;

/**
 * The steps a model's pipeline applies, read from the pipeline {@link ModelPipeline#build} builds —
 * built, walked, never run — so {@code streamform explain} cannot miss a step that runs: what it
 * prints is the transform hierarchy itself, each step with its display data.
 *
 * <p>The source is a stand-in ({@code Create.empty}) that is not listed: the source's own reader
 * (files or Kafka) is described from its declaration, and everything after it is the model's.
 */
public final class ModelSteps {
  private static final String SOURCE = "Source (stand-in)";
  private static final String UNREADABLE = "Unreadable (stand-in)";

  private ModelSteps() {}

  /**
   * One applied step: its name in the pipeline, its transform's class (simple name), its display
   * data as {@code label: value} lines, and the steps it applies inside that have display data of
   * their own (Streamform's transforms, a level deep).
   */
  public record Step(String name, String transform, List<String> display, List<Step> inner) {}

  /**
   * The steps of {@code model}'s pipeline, in the order the pipeline applies them, with the clock
   * {@code run} builds for its source ({@link #clock}); {@code appliedOnArrival} as {@code run}
   * chooses it for the runner (on arrival: a Kafka source on Flink).
   */
  public static List<Step> of(DeclaredModel model, boolean appliedOnArrival) {
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    PCollection<dev.streamform.transforms.envelope.SourceRecord> records =
        p.apply(SOURCE, Create.empty(SourceRecordCoder.of(model.recordSchema())));
    PCollection<KV<String, String>> unreadable =
        p.apply(UNREADABLE, Create.empty(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of())));
    ModelPipeline.build(model, records, unreadable, clock(model), appliedOnArrival, null);
    return walk(p, Set.of(SOURCE, UNREADABLE));
  }

  /**
   * The clock {@code run} builds for the model's source, on every runner: a Kafka source's log
   * clock ({@link KafkaModelPipeline#clock}: arrival order, {@code idle_after}), a file source's
   * clock (offset order per partition, as {@code FileModelRun} builds it). The partitions a run
   * reads are known only when it runs: shown as they arrive.
   */
  static SourceClock clock(DeclaredModel model) {
    return model.source().connector() == Connector.KAFKA
        ? KafkaModelPipeline.clock(model, List.of())
        : model.clock();
  }

  /**
   * The plan manifest of {@code modelName} derived from its built pipeline (built as {@code run}
   * builds it for the DirectRunner, never run: the source's clock as {@link #clock} says, events
   * applied in log order): the manifest's nodes in the order of the steps that realise them — the
   * Source by the {@link DeclaredPipeline#CLOCK clock} step, the Filter by the {@link
   * DeclaredPipeline#WHERE WHERE} step, the Aggregate (and a scoring model's Decisions) by the
   * {@link DeclaredPipeline#MODEL model} step — and every applied step with its display data, so a
   * step that runs cannot be missing from the manifest.
   */
  public static PlanManifest manifest(Project project, String modelName) {
    List<PlanManifest.Step> steps = new ArrayList<>();
    for (Step step : of(DeclaredModel.of(project, modelName), false)) {
      steps.add(manifestStep(step, true));
    }
    return PlanManifest.of(project, modelName, steps);
  }

  private static PlanManifest.Step manifestStep(Step step, boolean top) {
    List<PlanManifest.Node> realises = new ArrayList<>();
    if (top && step.name().equals(DeclaredPipeline.CLOCK)) {
      realises.add(PlanManifest.Node.SOURCE);
    } else if (top && step.name().equals(DeclaredPipeline.DUPLICATES)) {
      realises.add(PlanManifest.Node.DUPLICATES);
    } else if (top && step.name().equals(DeclaredPipeline.WHERE)) {
      realises.add(PlanManifest.Node.FILTER);
    } else if (top && step.name().equals(DeclaredPipeline.MODEL)) {
      realises.add(PlanManifest.Node.AGGREGATE);
      String scorer = ScoreEvents.class.getSimpleName();
      if (step.transform().equals(scorer)
          || step.inner().stream().anyMatch(i -> i.transform().equals(scorer))) {
        realises.add(PlanManifest.Node.DECISIONS);
      }
    }
    List<PlanManifest.Step> inner = new ArrayList<>();
    step.inner().forEach(i -> inner.add(manifestStep(i, false)));
    return new PlanManifest.Step(step.name(), step.transform(), step.display(), inner, realises);
  }

  /**
   * The top-level steps of {@code p} in topological order, but those named in {@code skip}; the
   * model's composite ({@link DeclaredPipeline}) is opened: its steps are listed in its place.
   */
  static List<Step> walk(Pipeline p, Set<String> skip) {
    List<Step> steps = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          private TransformHierarchy.Node top;
          private List<Step> inner;

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
            PTransform<?, ?> t = node.getTransform();
            if (t instanceof DeclaredPipeline) {
              top = null; // the model's composite: its own steps are the steps listed
              return;
            }
            TransformHierarchy.Node parent = node.getEnclosingNode();
            if (parent.isRootNode() || parent.getTransform() instanceof DeclaredPipeline) {
              top = skip.contains(node.getFullName()) ? null : node;
              if (top != null) {
                inner = new ArrayList<>();
                String name = parent.isRootNode() ? node.getFullName() : local(parent, node);
                steps.add(new Step(name, name(t), display(t), inner));
              }
            } else if (top != null && t != null && ours(t) && !display(t).isEmpty()) {
              // a step of Streamform's own inside a top-level one (the model's keyed stage)
              inner.add(new Step(local(top, node), name(t), display(t), List.of()));
            }
          }
        });
    return steps;
  }

  private static String local(TransformHierarchy.Node parent, TransformHierarchy.Node child) {
    String prefix = parent.getFullName() + "/";
    String full = child.getFullName();
    return full.startsWith(prefix) ? full.substring(prefix.length()) : full;
  }

  private static boolean ours(PTransform<?, ?> t) {
    return t.getClass().getName().startsWith("dev.streamform.");
  }

  /**
   * The transform's class as a reader knows it: {@code Deduplicate}, {@code Flatten.PCollections}.
   */
  private static String name(PTransform<?, ?> t) {
    Class<?> c = t.getClass();
    while (c.isAnonymousClass() || c.getSimpleName().startsWith("AutoValue_")) {
      c = c.getSuperclass();
    }
    if (c == PTransform.class) {
      return "composite";
    }
    return c.getEnclosingClass() == null
        ? c.getSimpleName()
        : c.getEnclosingClass().getSimpleName() + "." + c.getSimpleName();
  }

  private static List<String> display(PTransform<?, ?> t) {
    List<String> lines = new ArrayList<>();
    for (DisplayData.Item item : DisplayData.from(t).items()) {
      if (!item.getNamespace().getName().startsWith("dev.streamform.")) {
        continue; // Beam's own items (the DoFn class, the function) say nothing to a reader
      }
      String label = item.getLabel() == null ? item.getKey() : item.getLabel();
      lines.add(label + ": " + item.getValue());
    }
    lines.sort(null); // display data is a set: sorted, so the text is the same on every run
    return lines;
  }
}
