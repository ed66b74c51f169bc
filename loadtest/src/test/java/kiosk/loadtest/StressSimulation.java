package kiosk.loadtest;

import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.holdFor;
import static io.gatling.javaapi.core.CoreDsl.rampUsers;
import static io.gatling.javaapi.core.CoreDsl.reachRps;
import static io.gatling.javaapi.core.CoreDsl.scenario;

import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import java.time.Duration;

/**
 * The newsroom's stress test: virtual users walk the feed of article URLs in order, each
 * requesting one page after another, throttled to a target rate that is reached over a ramp and
 * then held. The report's "article page" group has every request; inside it, "ssr" and "shell"
 * split server-rendered pages from the overload fallback.
 *
 * <pre>
 *   npm run loadtest -- --simulation stress --rps 200 --reach 30 --hold 2 --base-url http://localhost:3000
 *   ./mvnw gatling:test -Dgatling.simulationClass=kiosk.loadtest.StressSimulation -Drps=200 ...
 * </pre>
 *
 * System properties:
 *   baseUrl      site origin (default http://localhost:3000)
 *   rps          target requests per second (default 100)
 *   reachInSec   ramp from 0 to rps, seconds (default 30)
 *   holdForMin   hold at rps, minutes, fractions allowed (default 2)
 *   users        virtual users looping over the feed (default 3 x rps, at least 10): the throttle
 *                only holds the rate while users x (1 / response time) exceeds it, so under
 *                overload the achieved rate falls short; the summary shows both
 *   urlFeed      CSV of article paths, file or classpath resource (default article-urls.csv)
 *   shareConnections  true: users share one connection pool, as a CDN in front would (default false)
 */
public class StressSimulation extends Simulation {
  private final double rps = Settings.positive("rps", 100);
  private final double reachInSec = Settings.positive("reachInSec", 30);
  private final double holdForMin = Settings.positive("holdForMin", 2);
  private final int users = Settings.wholePositive("users", (int) Math.max(10, Math.ceil(rps * 3)));
  private final PageViews pageViews = new PageViews();

  private final ScenarioBuilder readers =
      scenario("Stress")
          .exec(pageViews.attach())
          .forever()
          .on(feed(Site.articleFeed()).exec(pageViews.page("article page", "#{path}")));

  {
    Duration reach = Duration.ofMillis(Math.round(reachInSec * 1000));
    Duration hold = Duration.ofMillis(Math.round(holdForMin * 60_000));
    setUp(readers.injectOpen(rampUsers(users).during(reach)))
        .protocols(Site.protocol())
        .throttle(reachRps((int) Math.round(rps)).in(reach), holdFor(hold))
        .maxDuration(reach.plus(hold));
  }
}
