// The two lines a page says what happened in: a failure, read out at once
// (role=alert), and what an action did, read out when the reader is free
// (role=status). Each renders nothing without a message.

export function ErrorLine({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

export function NoticeLine({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p role="status" class="notice">
      {message}
    </p>
  );
}
