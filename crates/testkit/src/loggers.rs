//! The A-5 probe: which logger traits a type implements (autoref
//! specialization on concrete types), so a test can show that nothing
//! injected into a tool is a logger. Use [`crate::logger_traits!`].

use std::any::TypeId;
use std::marker::PhantomData;

/// A type to probe.
pub struct Probe<T: ?Sized>(pub PhantomData<T>);

macro_rules! detector {
    ($yes:ident, $no:ident, $method:ident, $($bound:tt)+) => {
        /// Answers true for a type with the bound.
        pub trait $yes {
            /// True: the probed type has the bound.
            fn $method(&self) -> bool {
                true
            }
        }
        impl<T: ?Sized + $($bound)+> $yes for Probe<T> {}
        /// Answers false otherwise.
        pub trait $no {
            /// False: the probed type lacks the bound.
            fn $method(&self) -> bool {
                false
            }
        }
        impl<T: ?Sized> $no for &Probe<T> {}
    };
}

detector!(IsSubscriber, NotSubscriber, subscriber, tracing::Subscriber);
detector!(
    IsLayer,
    NotLayer,
    layer,
    tracing_subscriber::Layer<tracing_subscriber::Registry>
);
detector!(
    IsMakeWriter,
    NotMakeWriter,
    make_writer,
    for<'a> tracing_subscriber::fmt::MakeWriter<'a>
);
detector!(IsIoWrite, NotIoWrite, io_write, std::io::Write);

/// True when `T` is `tracing::Dispatch`.
pub fn is_dispatch<T: ?Sized + 'static>() -> bool {
    TypeId::of::<T>() == TypeId::of::<tracing::Dispatch>()
}

/// `(type name, logger traits it implements)`: `tracing::Subscriber`,
/// `tracing_subscriber::Layer`, `MakeWriter`, `std::io::Write`, or being
/// `tracing::Dispatch`. Empty for a type that cannot log.
#[macro_export]
macro_rules! logger_traits {
    ($t:ty) => {{
        #[allow(unused_imports)]
        use $crate::loggers::{
            IsIoWrite, IsLayer, IsMakeWriter, IsSubscriber, NotIoWrite, NotLayer, NotMakeWriter,
            NotSubscriber, Probe,
        };
        let mut found: Vec<&'static str> = Vec::new();
        if (&Probe::<$t>(std::marker::PhantomData)).subscriber() {
            found.push("tracing::Subscriber");
        }
        if (&Probe::<$t>(std::marker::PhantomData)).layer() {
            found.push("tracing_subscriber::Layer");
        }
        if (&Probe::<$t>(std::marker::PhantomData)).make_writer() {
            found.push("MakeWriter");
        }
        if (&Probe::<$t>(std::marker::PhantomData)).io_write() {
            found.push("std::io::Write");
        }
        if $crate::loggers::is_dispatch::<$t>() {
            found.push("tracing::Dispatch");
        }
        (stringify!($t), found)
    }};
}
