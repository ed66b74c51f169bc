package kiosk.loadtest;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.scenario;

import io.gatling.javaapi.core.FeederBuilder;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Capacity in steps: for each rate in turn, new readers arrive at that rate, each requesting one
 * article page, for the hold time; the next step starts when the last reader of this one has
 * its answer. Arrivals do not wait for answers (an open model), so every step offers its rate
 * even when the site falls behind. Each step is a group in the report ("200 req/s"), with
 * "ssr" and "shell" inside, so one run gives the newsroom's table: rate, share server-rendered,
 * share over 1.2 s, failed.
 *
 * <pre>
 *   npm run loadtest -- --simulation capacity --rates 100,200,400,800 --step-hold 30 --base-url http://localhost:3000
 *   ./mvnw gatling:test -Dgatling.simulationClass=kiosk.loadtest.CapacityStepSimulation -Drates=100,200 ...
 * </pre>
 *
 * System properties:
 *   baseUrl      site origin (default http://localhost:3000)
 *   rates        requests per second of each step, in order (default 50,100,200,400,800)
 *   holdSec      seconds per step (default 30)
 *   warmUpSec    a first step, reported as "warm-up", at warmUpRps (default 10; 0 skips it)
 *   warmUpRps    rate of the warm-up (default half the first rate)
 *   urlFeed      CSV of article paths, file or classpath resource (default article-urls.csv)
 *   shareConnections  true: readers share one connection pool (default false: each its own)
 */
public class CapacityStepSimulation extends Simulation {
  private final List<Double> rates = Settings.rates("rates", "50,100,200,400,800");
  private final double holdSec = Settings.positive("holdSec", 30);
  private final double warmUpSec = Settings.atLeastZero("warmUpSec", 10);
  private final double warmUpRps = Settings.positive("warmUpRps", Math.max(1, rates.get(0) / 2));
  private final FeederBuilder<String> articles = Site.articleFeed();
  private final HttpProtocolBuilder protocol = Site.protocol();
  private final PageViews pageViews = new PageViews();

  private PopulationBuilder step(String name, double rate, double seconds) {
    return scenario(name)
        .exec(pageViews.attach())
        .exec(feed(articles))
        .exec(pageViews.page(name, "#{path}"))
        .injectOpen(constantUsersPerSec(rate).during(Duration.ofMillis(Math.round(seconds * 1000))))
        .protocols(protocol);
  }

  {
    List<PopulationBuilder> steps = new ArrayList<>();
    if (warmUpSec > 0) steps.add(step("warm-up", warmUpRps, warmUpSec));
    for (double rate : rates) steps.add(step(Settings.rateLabel(rate), rate, holdSec));
    // andThen: each step starts when every reader of the one before it is done.
    PopulationBuilder chain = steps.get(steps.size() - 1);
    for (int i = steps.size() - 2; i >= 0; i--) chain = steps.get(i).andThen(chain);
    setUp(chain);
  }
}
