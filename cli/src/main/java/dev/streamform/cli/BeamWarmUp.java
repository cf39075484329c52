package dev.streamform.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.beam.model.pipeline.v1.RunnerApi;
import org.apache.beam.model.pipeline.v1.SchemaApi;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.reflect.DoFnInvokers;
import org.apache.beam.sdk.util.common.ReflectHelpers;

/**
 * Starts, on a second thread, what Beam sets up once per process before a pipeline runs, while the
 * main thread parses the command line and reads the projects: the pipeline options registry (it
 * checks every registered options interface when first touched), the portable pipeline's protocol
 * buffer descriptors, the JSON round trip the DirectRunner puts its options through, and the byte
 * code generation of a step's invoker. The main thread, on reaching any of them, uses what is ready
 * or waits for its initialisation as for any class's; nothing the warm-up makes is used by the run
 * (docs/decisions/0163). {@code STREAMFORM_NO_WARMUP=1} turns it off.
 */
final class BeamWarmUp {
  private BeamWarmUp() {}

  /** Starts the warm-up for a command that builds a pipeline first thing ({@code test}). */
  static void startFor(String... args) {
    if (args.length == 0
        || !"test".equals(args[0])
        || System.getenv("STREAMFORM_NO_WARMUP") != null) {
      return;
    }
    Thread warmUp = new Thread(BeamWarmUp::warmUp, "streamform-warm-up");
    warmUp.setDaemon(true);
    warmUp.start();
  }

  private static void warmUp() {
    try {
      PipelineOptions options = PipelineOptionsFactory.create();
      RunnerApi.getDescriptor();
      SchemaApi.getDescriptor();
      ObjectMapper json =
          new ObjectMapper()
              .registerModules(ObjectMapper.findModules(ReflectHelpers.findClassLoader()));
      json.readValue(json.writeValueAsBytes(options), PipelineOptions.class);
      DoFnInvokers.invokerFor(new Idle());
    } catch (Exception | LinkageError e) {
      // the main thread meets the same error where it needs the same thing, and says it there
    }
  }

  /** A step that does nothing: its invoker is generated to start the code generator. */
  private static final class Idle extends DoFn<String, String> {
    @ProcessElement
    public void process(@Element String element, OutputReceiver<String> out) {
      out.output(element);
    }
  }
}
