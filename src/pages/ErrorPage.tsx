/** An answer to a reader in the site's chrome: an error, or a form's outcome (`heading`). */
export function ErrorPage({ status, message, heading }: { status: number; message: string; heading?: string }) {
  return (
    <div className="error-page">
      <h1>{heading ?? (status >= 500 ? 'Sorry, something went wrong' : 'This request could not be answered')}</h1>
      <p>{message}</p>
      <p>
        <a href="/">Go to the front page</a>
      </p>
      {status >= 400 && <p className="error-page__status">Error {status}</p>}
    </div>
  );
}
