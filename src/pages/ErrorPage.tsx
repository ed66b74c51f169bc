/** An error answered to a reader, in the site's chrome. */
export function ErrorPage({ status, message }: { status: number; message: string }) {
  return (
    <div className="error-page">
      <h1>{status >= 500 ? 'Sorry, something went wrong' : 'This request could not be answered'}</h1>
      <p>{message}</p>
      <p>
        <a href="/">Go to the front page</a>
      </p>
      <p className="error-page__status">Error {status}</p>
    </div>
  );
}
