using Microsoft.Extensions.Http.Resilience;
using Polly;

public static class Setup
{
    const int Retries = 2;
    public static void Add(IServiceCollection services, IConfiguration config)
    {
        services.AddHttpClient("github", c => c.BaseAddress = new Uri("https://api.github.com"))
            .AddResilienceHandler("gh", b => b
                .AddTimeout(new TimeSpan(0, 0, 20))
                .AddRetry(new HttpRetryStrategyOptions
                {
                    MaxRetryAttempts = Retries * 2,
                    Delay = TimeSpan.FromMilliseconds(250),
                    BackoffType = DelayBackoffType.Constant,
                    UseJitter = false,
                    ShouldHandle = args => ValueTask.FromResult(args.Outcome.Result?.StatusCode == HttpStatusCode.TooManyRequests),
                })
                .AddTimeout(TimeSpan.FromSeconds(5)));

        services.AddHttpClient<CatalogClient>()
            .AddTransientHttpErrorPolicy(p => p.WaitAndRetryAsync(new[] { TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(10) }));

        services.AddHttpClient<BasketClient>()
            .AddStandardResilienceHandler(config.GetSection("Resilience"));

        services.AddHttpClient<PayClient>()
            .AddPolicyHandler(Policy<HttpResponseMessage>.Handle<HttpRequestException>()
                .WaitAndRetryAsync(Backoff.DecorrelatedJitterBackoffV2(medianFirstRetryDelay: TimeSpan.FromSeconds(1), retryCount: 5)));
    }
}

public class GitHubService(IHttpClientFactory factory)
{
    public async Task Star(string repo)
    {
        var client = factory.CreateClient("github");
        await client.PutAsync($"/user/starred/{repo}", null);
    }
}
