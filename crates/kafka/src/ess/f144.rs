pub use root::*;

const _: () = ::planus::check_version_compatibility("planus-1.3.0");

/// The root namespace
///
/// Generated from these locations:
/// * File `schemas/f144_logdata.fbs`
#[no_implicit_prelude]
#[allow(clippy::needless_lifetimes)]
mod root {
    /// The table `Byte`
    ///
    /// Generated from these locations:
    /// * Table `Byte` in the file `schemas/f144_logdata.fbs:5`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct Byte {
        /// The field `value` in the table `Byte`
        pub value: i8,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for Byte {
        fn default() -> Self {
            Self { value: 0 }
        }
    }

    impl Byte {
        /// Creates a [ByteBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ByteBuilder<()> {
            ByteBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsDefault<i8, i8>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder, &0);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<i8>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 1>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<Byte>> for Byte {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Byte> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<Byte>> for Byte {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Byte>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<Byte> for Byte {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Byte> {
            Byte::create(builder, self.value)
        }
    }

    /// Builder for serializing an instance of the [Byte] type.
    ///
    /// Can be created using the [Byte::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ByteBuilder<State>(State);

    impl ByteBuilder<()> {
        /// Setter for the [`value` field](Byte#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ByteBuilder<(T0,)>
        where
            T0: ::planus::WriteAsDefault<i8, i8>,
        {
            ByteBuilder((value,))
        }

        /// Sets the [`value` field](Byte#structfield.value) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_default(self) -> ByteBuilder<(::planus::DefaultValue,)> {
            self.value(::planus::DefaultValue)
        }
    }

    impl<T0> ByteBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Byte].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Byte>
        where
            Self: ::planus::WriteAsOffset<Byte>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<i8, i8>> ::planus::WriteAs<::planus::Offset<Byte>>
        for ByteBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Byte>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Byte> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<i8, i8>> ::planus::WriteAsOptional<::planus::Offset<Byte>>
        for ByteBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Byte>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Byte>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsDefault<i8, i8>> ::planus::WriteAsOffset<Byte> for ByteBuilder<(T0,)> {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Byte> {
            let (v0,) = &self.0;
            Byte::create(builder, v0)
        }
    }

    /// Reference to a deserialized [Byte].
    #[derive(Copy, Clone)]
    pub struct ByteRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ByteRef<'a> {
        /// Getter for the [`value` field](Byte#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<i8> {
            ::core::result::Result::Ok(self.0.access(0, "Byte", "value")?.unwrap_or(0))
        }
    }

    impl<'a> ::core::fmt::Debug for ByteRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ByteRef");
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ByteRef<'a>> for Byte {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ByteRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ByteRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ByteRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ByteRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<Byte>> for Byte {
        type Value = ::planus::Offset<Byte>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<Byte>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ByteRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| error_kind.with_error_location("[ByteRef]", "read_as_root", 0))
        }
    }

    /// The table `UByte`
    ///
    /// Generated from these locations:
    /// * Table `UByte` in the file `schemas/f144_logdata.fbs:6`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct UByte {
        /// The field `value` in the table `UByte`
        pub value: u8,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for UByte {
        fn default() -> Self {
            Self { value: 0 }
        }
    }

    impl UByte {
        /// Creates a [UByteBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> UByteBuilder<()> {
            UByteBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsDefault<u8, u8>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder, &0);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<u8>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 1>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<UByte>> for UByte {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UByte> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<UByte>> for UByte {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<UByte>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<UByte> for UByte {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UByte> {
            UByte::create(builder, self.value)
        }
    }

    /// Builder for serializing an instance of the [UByte] type.
    ///
    /// Can be created using the [UByte::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct UByteBuilder<State>(State);

    impl UByteBuilder<()> {
        /// Setter for the [`value` field](UByte#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> UByteBuilder<(T0,)>
        where
            T0: ::planus::WriteAsDefault<u8, u8>,
        {
            UByteBuilder((value,))
        }

        /// Sets the [`value` field](UByte#structfield.value) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_default(self) -> UByteBuilder<(::planus::DefaultValue,)> {
            self.value(::planus::DefaultValue)
        }
    }

    impl<T0> UByteBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [UByte].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<UByte>
        where
            Self: ::planus::WriteAsOffset<UByte>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<u8, u8>> ::planus::WriteAs<::planus::Offset<UByte>>
        for UByteBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<UByte>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UByte> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<u8, u8>> ::planus::WriteAsOptional<::planus::Offset<UByte>>
        for UByteBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<UByte>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<UByte>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsDefault<u8, u8>> ::planus::WriteAsOffset<UByte> for UByteBuilder<(T0,)> {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UByte> {
            let (v0,) = &self.0;
            UByte::create(builder, v0)
        }
    }

    /// Reference to a deserialized [UByte].
    #[derive(Copy, Clone)]
    pub struct UByteRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> UByteRef<'a> {
        /// Getter for the [`value` field](UByte#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<u8> {
            ::core::result::Result::Ok(self.0.access(0, "UByte", "value")?.unwrap_or(0))
        }
    }

    impl<'a> ::core::fmt::Debug for UByteRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("UByteRef");
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<UByteRef<'a>> for UByte {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: UByteRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for UByteRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for UByteRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[UByteRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<UByte>> for UByte {
        type Value = ::planus::Offset<UByte>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<UByte>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for UByteRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| error_kind.with_error_location("[UByteRef]", "read_as_root", 0))
        }
    }

    /// The table `Short`
    ///
    /// Generated from these locations:
    /// * Table `Short` in the file `schemas/f144_logdata.fbs:7`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct Short {
        /// The field `value` in the table `Short`
        pub value: i16,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for Short {
        fn default() -> Self {
            Self { value: 0 }
        }
    }

    impl Short {
        /// Creates a [ShortBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ShortBuilder<()> {
            ShortBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsDefault<i16, i16>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder, &0);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<i16>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 2>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<Short>> for Short {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Short> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<Short>> for Short {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Short>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<Short> for Short {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Short> {
            Short::create(builder, self.value)
        }
    }

    /// Builder for serializing an instance of the [Short] type.
    ///
    /// Can be created using the [Short::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ShortBuilder<State>(State);

    impl ShortBuilder<()> {
        /// Setter for the [`value` field](Short#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ShortBuilder<(T0,)>
        where
            T0: ::planus::WriteAsDefault<i16, i16>,
        {
            ShortBuilder((value,))
        }

        /// Sets the [`value` field](Short#structfield.value) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_default(self) -> ShortBuilder<(::planus::DefaultValue,)> {
            self.value(::planus::DefaultValue)
        }
    }

    impl<T0> ShortBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Short].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Short>
        where
            Self: ::planus::WriteAsOffset<Short>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<i16, i16>> ::planus::WriteAs<::planus::Offset<Short>>
        for ShortBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Short>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Short> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<i16, i16>> ::planus::WriteAsOptional<::planus::Offset<Short>>
        for ShortBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Short>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Short>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsDefault<i16, i16>> ::planus::WriteAsOffset<Short>
        for ShortBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Short> {
            let (v0,) = &self.0;
            Short::create(builder, v0)
        }
    }

    /// Reference to a deserialized [Short].
    #[derive(Copy, Clone)]
    pub struct ShortRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ShortRef<'a> {
        /// Getter for the [`value` field](Short#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<i16> {
            ::core::result::Result::Ok(self.0.access(0, "Short", "value")?.unwrap_or(0))
        }
    }

    impl<'a> ::core::fmt::Debug for ShortRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ShortRef");
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ShortRef<'a>> for Short {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ShortRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ShortRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ShortRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ShortRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<Short>> for Short {
        type Value = ::planus::Offset<Short>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<Short>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ShortRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| error_kind.with_error_location("[ShortRef]", "read_as_root", 0))
        }
    }

    /// The table `UShort`
    ///
    /// Generated from these locations:
    /// * Table `UShort` in the file `schemas/f144_logdata.fbs:8`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct UShort {
        /// The field `value` in the table `UShort`
        pub value: u16,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for UShort {
        fn default() -> Self {
            Self { value: 0 }
        }
    }

    impl UShort {
        /// Creates a [UShortBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> UShortBuilder<()> {
            UShortBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsDefault<u16, u16>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder, &0);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<u16>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 2>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<UShort>> for UShort {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UShort> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<UShort>> for UShort {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<UShort>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<UShort> for UShort {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UShort> {
            UShort::create(builder, self.value)
        }
    }

    /// Builder for serializing an instance of the [UShort] type.
    ///
    /// Can be created using the [UShort::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct UShortBuilder<State>(State);

    impl UShortBuilder<()> {
        /// Setter for the [`value` field](UShort#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> UShortBuilder<(T0,)>
        where
            T0: ::planus::WriteAsDefault<u16, u16>,
        {
            UShortBuilder((value,))
        }

        /// Sets the [`value` field](UShort#structfield.value) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_default(self) -> UShortBuilder<(::planus::DefaultValue,)> {
            self.value(::planus::DefaultValue)
        }
    }

    impl<T0> UShortBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [UShort].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<UShort>
        where
            Self: ::planus::WriteAsOffset<UShort>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<u16, u16>> ::planus::WriteAs<::planus::Offset<UShort>>
        for UShortBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<UShort>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UShort> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<u16, u16>> ::planus::WriteAsOptional<::planus::Offset<UShort>>
        for UShortBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<UShort>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<UShort>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsDefault<u16, u16>> ::planus::WriteAsOffset<UShort>
        for UShortBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UShort> {
            let (v0,) = &self.0;
            UShort::create(builder, v0)
        }
    }

    /// Reference to a deserialized [UShort].
    #[derive(Copy, Clone)]
    pub struct UShortRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> UShortRef<'a> {
        /// Getter for the [`value` field](UShort#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<u16> {
            ::core::result::Result::Ok(self.0.access(0, "UShort", "value")?.unwrap_or(0))
        }
    }

    impl<'a> ::core::fmt::Debug for UShortRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("UShortRef");
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<UShortRef<'a>> for UShort {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: UShortRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for UShortRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for UShortRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[UShortRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<UShort>> for UShort {
        type Value = ::planus::Offset<UShort>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<UShort>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for UShortRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| error_kind.with_error_location("[UShortRef]", "read_as_root", 0))
        }
    }

    /// The table `Int`
    ///
    /// Generated from these locations:
    /// * Table `Int` in the file `schemas/f144_logdata.fbs:9`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct Int {
        /// The field `value` in the table `Int`
        pub value: i32,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for Int {
        fn default() -> Self {
            Self { value: 0 }
        }
    }

    impl Int {
        /// Creates a [IntBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> IntBuilder<()> {
            IntBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsDefault<i32, i32>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder, &0);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<i32>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<Int>> for Int {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Int> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<Int>> for Int {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Int>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<Int> for Int {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Int> {
            Int::create(builder, self.value)
        }
    }

    /// Builder for serializing an instance of the [Int] type.
    ///
    /// Can be created using the [Int::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct IntBuilder<State>(State);

    impl IntBuilder<()> {
        /// Setter for the [`value` field](Int#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> IntBuilder<(T0,)>
        where
            T0: ::planus::WriteAsDefault<i32, i32>,
        {
            IntBuilder((value,))
        }

        /// Sets the [`value` field](Int#structfield.value) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_default(self) -> IntBuilder<(::planus::DefaultValue,)> {
            self.value(::planus::DefaultValue)
        }
    }

    impl<T0> IntBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Int].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Int>
        where
            Self: ::planus::WriteAsOffset<Int>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<i32, i32>> ::planus::WriteAs<::planus::Offset<Int>>
        for IntBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Int>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Int> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<i32, i32>> ::planus::WriteAsOptional<::planus::Offset<Int>>
        for IntBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Int>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Int>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsDefault<i32, i32>> ::planus::WriteAsOffset<Int> for IntBuilder<(T0,)> {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Int> {
            let (v0,) = &self.0;
            Int::create(builder, v0)
        }
    }

    /// Reference to a deserialized [Int].
    #[derive(Copy, Clone)]
    pub struct IntRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> IntRef<'a> {
        /// Getter for the [`value` field](Int#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<i32> {
            ::core::result::Result::Ok(self.0.access(0, "Int", "value")?.unwrap_or(0))
        }
    }

    impl<'a> ::core::fmt::Debug for IntRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("IntRef");
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<IntRef<'a>> for Int {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: IntRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for IntRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for IntRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[IntRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<Int>> for Int {
        type Value = ::planus::Offset<Int>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<Int>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for IntRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| error_kind.with_error_location("[IntRef]", "read_as_root", 0))
        }
    }

    /// The table `UInt`
    ///
    /// Generated from these locations:
    /// * Table `UInt` in the file `schemas/f144_logdata.fbs:10`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct UInt {
        /// The field `value` in the table `UInt`
        pub value: u32,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for UInt {
        fn default() -> Self {
            Self { value: 0 }
        }
    }

    impl UInt {
        /// Creates a [UIntBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> UIntBuilder<()> {
            UIntBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsDefault<u32, u32>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder, &0);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<u32>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<UInt>> for UInt {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UInt> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<UInt>> for UInt {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<UInt>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<UInt> for UInt {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UInt> {
            UInt::create(builder, self.value)
        }
    }

    /// Builder for serializing an instance of the [UInt] type.
    ///
    /// Can be created using the [UInt::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct UIntBuilder<State>(State);

    impl UIntBuilder<()> {
        /// Setter for the [`value` field](UInt#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> UIntBuilder<(T0,)>
        where
            T0: ::planus::WriteAsDefault<u32, u32>,
        {
            UIntBuilder((value,))
        }

        /// Sets the [`value` field](UInt#structfield.value) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_default(self) -> UIntBuilder<(::planus::DefaultValue,)> {
            self.value(::planus::DefaultValue)
        }
    }

    impl<T0> UIntBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [UInt].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<UInt>
        where
            Self: ::planus::WriteAsOffset<UInt>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<u32, u32>> ::planus::WriteAs<::planus::Offset<UInt>>
        for UIntBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<UInt>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UInt> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<u32, u32>> ::planus::WriteAsOptional<::planus::Offset<UInt>>
        for UIntBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<UInt>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<UInt>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsDefault<u32, u32>> ::planus::WriteAsOffset<UInt> for UIntBuilder<(T0,)> {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<UInt> {
            let (v0,) = &self.0;
            UInt::create(builder, v0)
        }
    }

    /// Reference to a deserialized [UInt].
    #[derive(Copy, Clone)]
    pub struct UIntRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> UIntRef<'a> {
        /// Getter for the [`value` field](UInt#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<u32> {
            ::core::result::Result::Ok(self.0.access(0, "UInt", "value")?.unwrap_or(0))
        }
    }

    impl<'a> ::core::fmt::Debug for UIntRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("UIntRef");
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<UIntRef<'a>> for UInt {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: UIntRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for UIntRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for UIntRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[UIntRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<UInt>> for UInt {
        type Value = ::planus::Offset<UInt>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<UInt>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for UIntRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| error_kind.with_error_location("[UIntRef]", "read_as_root", 0))
        }
    }

    /// The table `Long`
    ///
    /// Generated from these locations:
    /// * Table `Long` in the file `schemas/f144_logdata.fbs:11`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct Long {
        /// The field `value` in the table `Long`
        pub value: i64,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for Long {
        fn default() -> Self {
            Self { value: 0 }
        }
    }

    impl Long {
        /// Creates a [LongBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> LongBuilder<()> {
            LongBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsDefault<i64, i64>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder, &0);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<i64>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 8>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<Long>> for Long {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Long> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<Long>> for Long {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Long>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<Long> for Long {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Long> {
            Long::create(builder, self.value)
        }
    }

    /// Builder for serializing an instance of the [Long] type.
    ///
    /// Can be created using the [Long::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct LongBuilder<State>(State);

    impl LongBuilder<()> {
        /// Setter for the [`value` field](Long#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> LongBuilder<(T0,)>
        where
            T0: ::planus::WriteAsDefault<i64, i64>,
        {
            LongBuilder((value,))
        }

        /// Sets the [`value` field](Long#structfield.value) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_default(self) -> LongBuilder<(::planus::DefaultValue,)> {
            self.value(::planus::DefaultValue)
        }
    }

    impl<T0> LongBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Long].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Long>
        where
            Self: ::planus::WriteAsOffset<Long>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<i64, i64>> ::planus::WriteAs<::planus::Offset<Long>>
        for LongBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Long>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Long> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<i64, i64>> ::planus::WriteAsOptional<::planus::Offset<Long>>
        for LongBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Long>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Long>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsDefault<i64, i64>> ::planus::WriteAsOffset<Long> for LongBuilder<(T0,)> {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Long> {
            let (v0,) = &self.0;
            Long::create(builder, v0)
        }
    }

    /// Reference to a deserialized [Long].
    #[derive(Copy, Clone)]
    pub struct LongRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> LongRef<'a> {
        /// Getter for the [`value` field](Long#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<i64> {
            ::core::result::Result::Ok(self.0.access(0, "Long", "value")?.unwrap_or(0))
        }
    }

    impl<'a> ::core::fmt::Debug for LongRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("LongRef");
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<LongRef<'a>> for Long {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: LongRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for LongRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for LongRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[LongRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<Long>> for Long {
        type Value = ::planus::Offset<Long>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<Long>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for LongRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| error_kind.with_error_location("[LongRef]", "read_as_root", 0))
        }
    }

    /// The table `ULong`
    ///
    /// Generated from these locations:
    /// * Table `ULong` in the file `schemas/f144_logdata.fbs:12`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct ULong {
        /// The field `value` in the table `ULong`
        pub value: u64,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ULong {
        fn default() -> Self {
            Self { value: 0 }
        }
    }

    impl ULong {
        /// Creates a [ULongBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ULongBuilder<()> {
            ULongBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsDefault<u64, u64>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder, &0);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<u64>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 8>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ULong>> for ULong {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ULong> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ULong>> for ULong {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ULong>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ULong> for ULong {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ULong> {
            ULong::create(builder, self.value)
        }
    }

    /// Builder for serializing an instance of the [ULong] type.
    ///
    /// Can be created using the [ULong::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ULongBuilder<State>(State);

    impl ULongBuilder<()> {
        /// Setter for the [`value` field](ULong#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ULongBuilder<(T0,)>
        where
            T0: ::planus::WriteAsDefault<u64, u64>,
        {
            ULongBuilder((value,))
        }

        /// Sets the [`value` field](ULong#structfield.value) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_default(self) -> ULongBuilder<(::planus::DefaultValue,)> {
            self.value(::planus::DefaultValue)
        }
    }

    impl<T0> ULongBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ULong].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ULong>
        where
            Self: ::planus::WriteAsOffset<ULong>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<u64, u64>> ::planus::WriteAs<::planus::Offset<ULong>>
        for ULongBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ULong>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ULong> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<u64, u64>> ::planus::WriteAsOptional<::planus::Offset<ULong>>
        for ULongBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ULong>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ULong>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsDefault<u64, u64>> ::planus::WriteAsOffset<ULong>
        for ULongBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ULong> {
            let (v0,) = &self.0;
            ULong::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ULong].
    #[derive(Copy, Clone)]
    pub struct ULongRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ULongRef<'a> {
        /// Getter for the [`value` field](ULong#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<u64> {
            ::core::result::Result::Ok(self.0.access(0, "ULong", "value")?.unwrap_or(0))
        }
    }

    impl<'a> ::core::fmt::Debug for ULongRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ULongRef");
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ULongRef<'a>> for ULong {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ULongRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ULongRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ULongRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ULongRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ULong>> for ULong {
        type Value = ::planus::Offset<ULong>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ULong>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ULongRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| error_kind.with_error_location("[ULongRef]", "read_as_root", 0))
        }
    }

    /// The table `Float`
    ///
    /// Generated from these locations:
    /// * Table `Float` in the file `schemas/f144_logdata.fbs:13`
    #[derive(Clone, Debug, PartialEq, PartialOrd, ::serde::Serialize, ::serde::Deserialize)]
    pub struct Float {
        /// The field `value` in the table `Float`
        pub value: f32,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for Float {
        fn default() -> Self {
            Self { value: 0.0 }
        }
    }

    impl Float {
        /// Creates a [FloatBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> FloatBuilder<()> {
            FloatBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsDefault<f32, f32>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder, &0.0);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<f32>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<Float>> for Float {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Float> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<Float>> for Float {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Float>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<Float> for Float {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Float> {
            Float::create(builder, self.value)
        }
    }

    /// Builder for serializing an instance of the [Float] type.
    ///
    /// Can be created using the [Float::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct FloatBuilder<State>(State);

    impl FloatBuilder<()> {
        /// Setter for the [`value` field](Float#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> FloatBuilder<(T0,)>
        where
            T0: ::planus::WriteAsDefault<f32, f32>,
        {
            FloatBuilder((value,))
        }

        /// Sets the [`value` field](Float#structfield.value) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_default(self) -> FloatBuilder<(::planus::DefaultValue,)> {
            self.value(::planus::DefaultValue)
        }
    }

    impl<T0> FloatBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Float].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Float>
        where
            Self: ::planus::WriteAsOffset<Float>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<f32, f32>> ::planus::WriteAs<::planus::Offset<Float>>
        for FloatBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Float>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Float> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<f32, f32>> ::planus::WriteAsOptional<::planus::Offset<Float>>
        for FloatBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Float>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Float>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsDefault<f32, f32>> ::planus::WriteAsOffset<Float>
        for FloatBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Float> {
            let (v0,) = &self.0;
            Float::create(builder, v0)
        }
    }

    /// Reference to a deserialized [Float].
    #[derive(Copy, Clone)]
    pub struct FloatRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> FloatRef<'a> {
        /// Getter for the [`value` field](Float#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<f32> {
            ::core::result::Result::Ok(self.0.access(0, "Float", "value")?.unwrap_or(0.0))
        }
    }

    impl<'a> ::core::fmt::Debug for FloatRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("FloatRef");
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<FloatRef<'a>> for Float {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: FloatRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for FloatRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for FloatRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[FloatRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<Float>> for Float {
        type Value = ::planus::Offset<Float>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<Float>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for FloatRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| error_kind.with_error_location("[FloatRef]", "read_as_root", 0))
        }
    }

    /// The table `Double`
    ///
    /// Generated from these locations:
    /// * Table `Double` in the file `schemas/f144_logdata.fbs:14`
    #[derive(Clone, Debug, PartialEq, PartialOrd, ::serde::Serialize, ::serde::Deserialize)]
    pub struct Double {
        /// The field `value` in the table `Double`
        pub value: f64,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for Double {
        fn default() -> Self {
            Self { value: 0.0 }
        }
    }

    impl Double {
        /// Creates a [DoubleBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> DoubleBuilder<()> {
            DoubleBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsDefault<f64, f64>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder, &0.0);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<f64>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 8>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<Double>> for Double {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Double> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<Double>> for Double {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Double>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<Double> for Double {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Double> {
            Double::create(builder, self.value)
        }
    }

    /// Builder for serializing an instance of the [Double] type.
    ///
    /// Can be created using the [Double::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct DoubleBuilder<State>(State);

    impl DoubleBuilder<()> {
        /// Setter for the [`value` field](Double#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> DoubleBuilder<(T0,)>
        where
            T0: ::planus::WriteAsDefault<f64, f64>,
        {
            DoubleBuilder((value,))
        }

        /// Sets the [`value` field](Double#structfield.value) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_default(self) -> DoubleBuilder<(::planus::DefaultValue,)> {
            self.value(::planus::DefaultValue)
        }
    }

    impl<T0> DoubleBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [Double].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<Double>
        where
            Self: ::planus::WriteAsOffset<Double>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<f64, f64>> ::planus::WriteAs<::planus::Offset<Double>>
        for DoubleBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Double>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Double> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsDefault<f64, f64>> ::planus::WriteAsOptional<::planus::Offset<Double>>
        for DoubleBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<Double>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<Double>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsDefault<f64, f64>> ::planus::WriteAsOffset<Double>
        for DoubleBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<Double> {
            let (v0,) = &self.0;
            Double::create(builder, v0)
        }
    }

    /// Reference to a deserialized [Double].
    #[derive(Copy, Clone)]
    pub struct DoubleRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> DoubleRef<'a> {
        /// Getter for the [`value` field](Double#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<f64> {
            ::core::result::Result::Ok(self.0.access(0, "Double", "value")?.unwrap_or(0.0))
        }
    }

    impl<'a> ::core::fmt::Debug for DoubleRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("DoubleRef");
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<DoubleRef<'a>> for Double {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: DoubleRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for DoubleRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for DoubleRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[DoubleRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<Double>> for Double {
        type Value = ::planus::Offset<Double>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<Double>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for DoubleRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| error_kind.with_error_location("[DoubleRef]", "read_as_root", 0))
        }
    }

    /// The table `ArrayByte`
    ///
    /// Generated from these locations:
    /// * Table `ArrayByte` in the file `schemas/f144_logdata.fbs:16`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct ArrayByte {
        /// The field `value` in the table `ArrayByte`
        pub value: ::core::option::Option<::planus::alloc::vec::Vec<i8>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ArrayByte {
        fn default() -> Self {
            Self {
                value: ::core::default::Default::default(),
            }
        }
    }

    impl ArrayByte {
        /// Creates a [ArrayByteBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ArrayByteBuilder<()> {
            ArrayByteBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsOptional<::planus::Offset<[i8]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<::planus::Offset<[i8]>>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ArrayByte>> for ArrayByte {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayByte> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ArrayByte>> for ArrayByte {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayByte>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ArrayByte> for ArrayByte {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayByte> {
            ArrayByte::create(builder, &self.value)
        }
    }

    /// Builder for serializing an instance of the [ArrayByte] type.
    ///
    /// Can be created using the [ArrayByte::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ArrayByteBuilder<State>(State);

    impl ArrayByteBuilder<()> {
        /// Setter for the [`value` field](ArrayByte#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ArrayByteBuilder<(T0,)>
        where
            T0: ::planus::WriteAsOptional<::planus::Offset<[i8]>>,
        {
            ArrayByteBuilder((value,))
        }

        /// Sets the [`value` field](ArrayByte#structfield.value) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_null(self) -> ArrayByteBuilder<((),)> {
            self.value(())
        }
    }

    impl<T0> ArrayByteBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ArrayByte].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayByte>
        where
            Self: ::planus::WriteAsOffset<ArrayByte>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i8]>>>
        ::planus::WriteAs<::planus::Offset<ArrayByte>> for ArrayByteBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayByte>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayByte> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i8]>>>
        ::planus::WriteAsOptional<::planus::Offset<ArrayByte>> for ArrayByteBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayByte>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayByte>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i8]>>> ::planus::WriteAsOffset<ArrayByte>
        for ArrayByteBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayByte> {
            let (v0,) = &self.0;
            ArrayByte::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ArrayByte].
    #[derive(Copy, Clone)]
    pub struct ArrayByteRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ArrayByteRef<'a> {
        /// Getter for the [`value` field](ArrayByte#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<::core::option::Option<&'a [i8]>> {
            self.0.access(0, "ArrayByte", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for ArrayByteRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ArrayByteRef");
            if let ::core::option::Option::Some(field_value) = self.value().transpose() {
                f.field("value", &field_value);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ArrayByteRef<'a>> for ArrayByte {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ArrayByteRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: value.value()?.map(|v| v.to_vec()),
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ArrayByteRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ArrayByteRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ArrayByteRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ArrayByte>> for ArrayByte {
        type Value = ::planus::Offset<ArrayByte>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ArrayByte>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ArrayByteRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[ArrayByteRef]", "read_as_root", 0)
            })
        }
    }

    /// The table `ArrayUByte`
    ///
    /// Generated from these locations:
    /// * Table `ArrayUByte` in the file `schemas/f144_logdata.fbs:17`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct ArrayUByte {
        /// The field `value` in the table `ArrayUByte`
        pub value: ::core::option::Option<::planus::alloc::vec::Vec<u8>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ArrayUByte {
        fn default() -> Self {
            Self {
                value: ::core::default::Default::default(),
            }
        }
    }

    impl ArrayUByte {
        /// Creates a [ArrayUByteBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ArrayUByteBuilder<()> {
            ArrayUByteBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsOptional<::planus::Offset<[u8]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<::planus::Offset<[u8]>>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ArrayUByte>> for ArrayUByte {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUByte> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ArrayUByte>> for ArrayUByte {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayUByte>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ArrayUByte> for ArrayUByte {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUByte> {
            ArrayUByte::create(builder, &self.value)
        }
    }

    /// Builder for serializing an instance of the [ArrayUByte] type.
    ///
    /// Can be created using the [ArrayUByte::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ArrayUByteBuilder<State>(State);

    impl ArrayUByteBuilder<()> {
        /// Setter for the [`value` field](ArrayUByte#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ArrayUByteBuilder<(T0,)>
        where
            T0: ::planus::WriteAsOptional<::planus::Offset<[u8]>>,
        {
            ArrayUByteBuilder((value,))
        }

        /// Sets the [`value` field](ArrayUByte#structfield.value) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_null(self) -> ArrayUByteBuilder<((),)> {
            self.value(())
        }
    }

    impl<T0> ArrayUByteBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ArrayUByte].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUByte>
        where
            Self: ::planus::WriteAsOffset<ArrayUByte>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u8]>>>
        ::planus::WriteAs<::planus::Offset<ArrayUByte>> for ArrayUByteBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayUByte>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUByte> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u8]>>>
        ::planus::WriteAsOptional<::planus::Offset<ArrayUByte>> for ArrayUByteBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayUByte>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayUByte>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u8]>>> ::planus::WriteAsOffset<ArrayUByte>
        for ArrayUByteBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUByte> {
            let (v0,) = &self.0;
            ArrayUByte::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ArrayUByte].
    #[derive(Copy, Clone)]
    pub struct ArrayUByteRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ArrayUByteRef<'a> {
        /// Getter for the [`value` field](ArrayUByte#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<::core::option::Option<&'a [u8]>> {
            self.0.access(0, "ArrayUByte", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for ArrayUByteRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ArrayUByteRef");
            if let ::core::option::Option::Some(field_value) = self.value().transpose() {
                f.field("value", &field_value);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ArrayUByteRef<'a>> for ArrayUByte {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ArrayUByteRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: value.value()?.map(|v| v.to_vec()),
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ArrayUByteRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ArrayUByteRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ArrayUByteRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ArrayUByte>> for ArrayUByte {
        type Value = ::planus::Offset<ArrayUByte>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ArrayUByte>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ArrayUByteRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[ArrayUByteRef]", "read_as_root", 0)
            })
        }
    }

    /// The table `ArrayShort`
    ///
    /// Generated from these locations:
    /// * Table `ArrayShort` in the file `schemas/f144_logdata.fbs:18`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct ArrayShort {
        /// The field `value` in the table `ArrayShort`
        pub value: ::core::option::Option<::planus::alloc::vec::Vec<i16>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ArrayShort {
        fn default() -> Self {
            Self {
                value: ::core::default::Default::default(),
            }
        }
    }

    impl ArrayShort {
        /// Creates a [ArrayShortBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ArrayShortBuilder<()> {
            ArrayShortBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsOptional<::planus::Offset<[i16]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<::planus::Offset<[i16]>>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ArrayShort>> for ArrayShort {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayShort> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ArrayShort>> for ArrayShort {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayShort>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ArrayShort> for ArrayShort {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayShort> {
            ArrayShort::create(builder, &self.value)
        }
    }

    /// Builder for serializing an instance of the [ArrayShort] type.
    ///
    /// Can be created using the [ArrayShort::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ArrayShortBuilder<State>(State);

    impl ArrayShortBuilder<()> {
        /// Setter for the [`value` field](ArrayShort#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ArrayShortBuilder<(T0,)>
        where
            T0: ::planus::WriteAsOptional<::planus::Offset<[i16]>>,
        {
            ArrayShortBuilder((value,))
        }

        /// Sets the [`value` field](ArrayShort#structfield.value) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_null(self) -> ArrayShortBuilder<((),)> {
            self.value(())
        }
    }

    impl<T0> ArrayShortBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ArrayShort].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayShort>
        where
            Self: ::planus::WriteAsOffset<ArrayShort>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i16]>>>
        ::planus::WriteAs<::planus::Offset<ArrayShort>> for ArrayShortBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayShort>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayShort> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i16]>>>
        ::planus::WriteAsOptional<::planus::Offset<ArrayShort>> for ArrayShortBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayShort>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayShort>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i16]>>> ::planus::WriteAsOffset<ArrayShort>
        for ArrayShortBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayShort> {
            let (v0,) = &self.0;
            ArrayShort::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ArrayShort].
    #[derive(Copy, Clone)]
    pub struct ArrayShortRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ArrayShortRef<'a> {
        /// Getter for the [`value` field](ArrayShort#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, i16>>> {
            self.0.access(0, "ArrayShort", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for ArrayShortRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ArrayShortRef");
            if let ::core::option::Option::Some(field_value) = self.value().transpose() {
                f.field("value", &field_value);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ArrayShortRef<'a>> for ArrayShort {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ArrayShortRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: if let ::core::option::Option::Some(value) = value.value()? {
                    ::core::option::Option::Some(value.to_vec()?)
                } else {
                    ::core::option::Option::None
                },
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ArrayShortRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ArrayShortRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ArrayShortRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ArrayShort>> for ArrayShort {
        type Value = ::planus::Offset<ArrayShort>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ArrayShort>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ArrayShortRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[ArrayShortRef]", "read_as_root", 0)
            })
        }
    }

    /// The table `ArrayUShort`
    ///
    /// Generated from these locations:
    /// * Table `ArrayUShort` in the file `schemas/f144_logdata.fbs:19`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct ArrayUShort {
        /// The field `value` in the table `ArrayUShort`
        pub value: ::core::option::Option<::planus::alloc::vec::Vec<u16>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ArrayUShort {
        fn default() -> Self {
            Self {
                value: ::core::default::Default::default(),
            }
        }
    }

    impl ArrayUShort {
        /// Creates a [ArrayUShortBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ArrayUShortBuilder<()> {
            ArrayUShortBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsOptional<::planus::Offset<[u16]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<::planus::Offset<[u16]>>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ArrayUShort>> for ArrayUShort {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUShort> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ArrayUShort>> for ArrayUShort {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayUShort>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ArrayUShort> for ArrayUShort {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUShort> {
            ArrayUShort::create(builder, &self.value)
        }
    }

    /// Builder for serializing an instance of the [ArrayUShort] type.
    ///
    /// Can be created using the [ArrayUShort::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ArrayUShortBuilder<State>(State);

    impl ArrayUShortBuilder<()> {
        /// Setter for the [`value` field](ArrayUShort#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ArrayUShortBuilder<(T0,)>
        where
            T0: ::planus::WriteAsOptional<::planus::Offset<[u16]>>,
        {
            ArrayUShortBuilder((value,))
        }

        /// Sets the [`value` field](ArrayUShort#structfield.value) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_null(self) -> ArrayUShortBuilder<((),)> {
            self.value(())
        }
    }

    impl<T0> ArrayUShortBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ArrayUShort].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUShort>
        where
            Self: ::planus::WriteAsOffset<ArrayUShort>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u16]>>>
        ::planus::WriteAs<::planus::Offset<ArrayUShort>> for ArrayUShortBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayUShort>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUShort> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u16]>>>
        ::planus::WriteAsOptional<::planus::Offset<ArrayUShort>> for ArrayUShortBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayUShort>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayUShort>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u16]>>>
        ::planus::WriteAsOffset<ArrayUShort> for ArrayUShortBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUShort> {
            let (v0,) = &self.0;
            ArrayUShort::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ArrayUShort].
    #[derive(Copy, Clone)]
    pub struct ArrayUShortRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ArrayUShortRef<'a> {
        /// Getter for the [`value` field](ArrayUShort#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, u16>>> {
            self.0.access(0, "ArrayUShort", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for ArrayUShortRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ArrayUShortRef");
            if let ::core::option::Option::Some(field_value) = self.value().transpose() {
                f.field("value", &field_value);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ArrayUShortRef<'a>> for ArrayUShort {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ArrayUShortRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: if let ::core::option::Option::Some(value) = value.value()? {
                    ::core::option::Option::Some(value.to_vec()?)
                } else {
                    ::core::option::Option::None
                },
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ArrayUShortRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ArrayUShortRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ArrayUShortRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ArrayUShort>> for ArrayUShort {
        type Value = ::planus::Offset<ArrayUShort>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ArrayUShort>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ArrayUShortRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[ArrayUShortRef]", "read_as_root", 0)
            })
        }
    }

    /// The table `ArrayInt`
    ///
    /// Generated from these locations:
    /// * Table `ArrayInt` in the file `schemas/f144_logdata.fbs:20`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct ArrayInt {
        /// The field `value` in the table `ArrayInt`
        pub value: ::core::option::Option<::planus::alloc::vec::Vec<i32>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ArrayInt {
        fn default() -> Self {
            Self {
                value: ::core::default::Default::default(),
            }
        }
    }

    impl ArrayInt {
        /// Creates a [ArrayIntBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ArrayIntBuilder<()> {
            ArrayIntBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<::planus::Offset<[i32]>>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ArrayInt>> for ArrayInt {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayInt> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ArrayInt>> for ArrayInt {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayInt>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ArrayInt> for ArrayInt {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayInt> {
            ArrayInt::create(builder, &self.value)
        }
    }

    /// Builder for serializing an instance of the [ArrayInt] type.
    ///
    /// Can be created using the [ArrayInt::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ArrayIntBuilder<State>(State);

    impl ArrayIntBuilder<()> {
        /// Setter for the [`value` field](ArrayInt#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ArrayIntBuilder<(T0,)>
        where
            T0: ::planus::WriteAsOptional<::planus::Offset<[i32]>>,
        {
            ArrayIntBuilder((value,))
        }

        /// Sets the [`value` field](ArrayInt#structfield.value) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_null(self) -> ArrayIntBuilder<((),)> {
            self.value(())
        }
    }

    impl<T0> ArrayIntBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ArrayInt].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayInt>
        where
            Self: ::planus::WriteAsOffset<ArrayInt>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i32]>>>
        ::planus::WriteAs<::planus::Offset<ArrayInt>> for ArrayIntBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayInt>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayInt> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i32]>>>
        ::planus::WriteAsOptional<::planus::Offset<ArrayInt>> for ArrayIntBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayInt>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayInt>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i32]>>> ::planus::WriteAsOffset<ArrayInt>
        for ArrayIntBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayInt> {
            let (v0,) = &self.0;
            ArrayInt::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ArrayInt].
    #[derive(Copy, Clone)]
    pub struct ArrayIntRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ArrayIntRef<'a> {
        /// Getter for the [`value` field](ArrayInt#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, i32>>> {
            self.0.access(0, "ArrayInt", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for ArrayIntRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ArrayIntRef");
            if let ::core::option::Option::Some(field_value) = self.value().transpose() {
                f.field("value", &field_value);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ArrayIntRef<'a>> for ArrayInt {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ArrayIntRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: if let ::core::option::Option::Some(value) = value.value()? {
                    ::core::option::Option::Some(value.to_vec()?)
                } else {
                    ::core::option::Option::None
                },
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ArrayIntRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ArrayIntRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ArrayIntRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ArrayInt>> for ArrayInt {
        type Value = ::planus::Offset<ArrayInt>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ArrayInt>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ArrayIntRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[ArrayIntRef]", "read_as_root", 0)
            })
        }
    }

    /// The table `ArrayUInt`
    ///
    /// Generated from these locations:
    /// * Table `ArrayUInt` in the file `schemas/f144_logdata.fbs:21`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct ArrayUInt {
        /// The field `value` in the table `ArrayUInt`
        pub value: ::core::option::Option<::planus::alloc::vec::Vec<u32>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ArrayUInt {
        fn default() -> Self {
            Self {
                value: ::core::default::Default::default(),
            }
        }
    }

    impl ArrayUInt {
        /// Creates a [ArrayUIntBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ArrayUIntBuilder<()> {
            ArrayUIntBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsOptional<::planus::Offset<[u32]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<::planus::Offset<[u32]>>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ArrayUInt>> for ArrayUInt {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUInt> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ArrayUInt>> for ArrayUInt {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayUInt>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ArrayUInt> for ArrayUInt {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUInt> {
            ArrayUInt::create(builder, &self.value)
        }
    }

    /// Builder for serializing an instance of the [ArrayUInt] type.
    ///
    /// Can be created using the [ArrayUInt::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ArrayUIntBuilder<State>(State);

    impl ArrayUIntBuilder<()> {
        /// Setter for the [`value` field](ArrayUInt#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ArrayUIntBuilder<(T0,)>
        where
            T0: ::planus::WriteAsOptional<::planus::Offset<[u32]>>,
        {
            ArrayUIntBuilder((value,))
        }

        /// Sets the [`value` field](ArrayUInt#structfield.value) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_null(self) -> ArrayUIntBuilder<((),)> {
            self.value(())
        }
    }

    impl<T0> ArrayUIntBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ArrayUInt].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUInt>
        where
            Self: ::planus::WriteAsOffset<ArrayUInt>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u32]>>>
        ::planus::WriteAs<::planus::Offset<ArrayUInt>> for ArrayUIntBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayUInt>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUInt> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u32]>>>
        ::planus::WriteAsOptional<::planus::Offset<ArrayUInt>> for ArrayUIntBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayUInt>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayUInt>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u32]>>> ::planus::WriteAsOffset<ArrayUInt>
        for ArrayUIntBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayUInt> {
            let (v0,) = &self.0;
            ArrayUInt::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ArrayUInt].
    #[derive(Copy, Clone)]
    pub struct ArrayUIntRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ArrayUIntRef<'a> {
        /// Getter for the [`value` field](ArrayUInt#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, u32>>> {
            self.0.access(0, "ArrayUInt", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for ArrayUIntRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ArrayUIntRef");
            if let ::core::option::Option::Some(field_value) = self.value().transpose() {
                f.field("value", &field_value);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ArrayUIntRef<'a>> for ArrayUInt {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ArrayUIntRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: if let ::core::option::Option::Some(value) = value.value()? {
                    ::core::option::Option::Some(value.to_vec()?)
                } else {
                    ::core::option::Option::None
                },
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ArrayUIntRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ArrayUIntRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ArrayUIntRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ArrayUInt>> for ArrayUInt {
        type Value = ::planus::Offset<ArrayUInt>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ArrayUInt>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ArrayUIntRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[ArrayUIntRef]", "read_as_root", 0)
            })
        }
    }

    /// The table `ArrayLong`
    ///
    /// Generated from these locations:
    /// * Table `ArrayLong` in the file `schemas/f144_logdata.fbs:22`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct ArrayLong {
        /// The field `value` in the table `ArrayLong`
        pub value: ::core::option::Option<::planus::alloc::vec::Vec<i64>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ArrayLong {
        fn default() -> Self {
            Self {
                value: ::core::default::Default::default(),
            }
        }
    }

    impl ArrayLong {
        /// Creates a [ArrayLongBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ArrayLongBuilder<()> {
            ArrayLongBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsOptional<::planus::Offset<[i64]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<::planus::Offset<[i64]>>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ArrayLong>> for ArrayLong {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayLong> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ArrayLong>> for ArrayLong {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayLong>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ArrayLong> for ArrayLong {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayLong> {
            ArrayLong::create(builder, &self.value)
        }
    }

    /// Builder for serializing an instance of the [ArrayLong] type.
    ///
    /// Can be created using the [ArrayLong::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ArrayLongBuilder<State>(State);

    impl ArrayLongBuilder<()> {
        /// Setter for the [`value` field](ArrayLong#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ArrayLongBuilder<(T0,)>
        where
            T0: ::planus::WriteAsOptional<::planus::Offset<[i64]>>,
        {
            ArrayLongBuilder((value,))
        }

        /// Sets the [`value` field](ArrayLong#structfield.value) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_null(self) -> ArrayLongBuilder<((),)> {
            self.value(())
        }
    }

    impl<T0> ArrayLongBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ArrayLong].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayLong>
        where
            Self: ::planus::WriteAsOffset<ArrayLong>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i64]>>>
        ::planus::WriteAs<::planus::Offset<ArrayLong>> for ArrayLongBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayLong>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayLong> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i64]>>>
        ::planus::WriteAsOptional<::planus::Offset<ArrayLong>> for ArrayLongBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayLong>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayLong>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[i64]>>> ::planus::WriteAsOffset<ArrayLong>
        for ArrayLongBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayLong> {
            let (v0,) = &self.0;
            ArrayLong::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ArrayLong].
    #[derive(Copy, Clone)]
    pub struct ArrayLongRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ArrayLongRef<'a> {
        /// Getter for the [`value` field](ArrayLong#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, i64>>> {
            self.0.access(0, "ArrayLong", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for ArrayLongRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ArrayLongRef");
            if let ::core::option::Option::Some(field_value) = self.value().transpose() {
                f.field("value", &field_value);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ArrayLongRef<'a>> for ArrayLong {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ArrayLongRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: if let ::core::option::Option::Some(value) = value.value()? {
                    ::core::option::Option::Some(value.to_vec()?)
                } else {
                    ::core::option::Option::None
                },
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ArrayLongRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ArrayLongRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ArrayLongRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ArrayLong>> for ArrayLong {
        type Value = ::planus::Offset<ArrayLong>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ArrayLong>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ArrayLongRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[ArrayLongRef]", "read_as_root", 0)
            })
        }
    }

    /// The table `ArrayULong`
    ///
    /// Generated from these locations:
    /// * Table `ArrayULong` in the file `schemas/f144_logdata.fbs:23`
    #[derive(
        Clone, Debug, PartialEq, PartialOrd, Eq, Ord, Hash, ::serde::Serialize, ::serde::Deserialize,
    )]
    pub struct ArrayULong {
        /// The field `value` in the table `ArrayULong`
        pub value: ::core::option::Option<::planus::alloc::vec::Vec<u64>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ArrayULong {
        fn default() -> Self {
            Self {
                value: ::core::default::Default::default(),
            }
        }
    }

    impl ArrayULong {
        /// Creates a [ArrayULongBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ArrayULongBuilder<()> {
            ArrayULongBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsOptional<::planus::Offset<[u64]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<::planus::Offset<[u64]>>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ArrayULong>> for ArrayULong {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayULong> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ArrayULong>> for ArrayULong {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayULong>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ArrayULong> for ArrayULong {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayULong> {
            ArrayULong::create(builder, &self.value)
        }
    }

    /// Builder for serializing an instance of the [ArrayULong] type.
    ///
    /// Can be created using the [ArrayULong::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ArrayULongBuilder<State>(State);

    impl ArrayULongBuilder<()> {
        /// Setter for the [`value` field](ArrayULong#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ArrayULongBuilder<(T0,)>
        where
            T0: ::planus::WriteAsOptional<::planus::Offset<[u64]>>,
        {
            ArrayULongBuilder((value,))
        }

        /// Sets the [`value` field](ArrayULong#structfield.value) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_null(self) -> ArrayULongBuilder<((),)> {
            self.value(())
        }
    }

    impl<T0> ArrayULongBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ArrayULong].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayULong>
        where
            Self: ::planus::WriteAsOffset<ArrayULong>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u64]>>>
        ::planus::WriteAs<::planus::Offset<ArrayULong>> for ArrayULongBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayULong>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayULong> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u64]>>>
        ::planus::WriteAsOptional<::planus::Offset<ArrayULong>> for ArrayULongBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayULong>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayULong>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[u64]>>> ::planus::WriteAsOffset<ArrayULong>
        for ArrayULongBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayULong> {
            let (v0,) = &self.0;
            ArrayULong::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ArrayULong].
    #[derive(Copy, Clone)]
    pub struct ArrayULongRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ArrayULongRef<'a> {
        /// Getter for the [`value` field](ArrayULong#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, u64>>> {
            self.0.access(0, "ArrayULong", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for ArrayULongRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ArrayULongRef");
            if let ::core::option::Option::Some(field_value) = self.value().transpose() {
                f.field("value", &field_value);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ArrayULongRef<'a>> for ArrayULong {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ArrayULongRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: if let ::core::option::Option::Some(value) = value.value()? {
                    ::core::option::Option::Some(value.to_vec()?)
                } else {
                    ::core::option::Option::None
                },
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ArrayULongRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ArrayULongRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ArrayULongRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ArrayULong>> for ArrayULong {
        type Value = ::planus::Offset<ArrayULong>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ArrayULong>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ArrayULongRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[ArrayULongRef]", "read_as_root", 0)
            })
        }
    }

    /// The table `ArrayFloat`
    ///
    /// Generated from these locations:
    /// * Table `ArrayFloat` in the file `schemas/f144_logdata.fbs:24`
    #[derive(Clone, Debug, PartialEq, PartialOrd, ::serde::Serialize, ::serde::Deserialize)]
    pub struct ArrayFloat {
        /// The field `value` in the table `ArrayFloat`
        pub value: ::core::option::Option<::planus::alloc::vec::Vec<f32>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ArrayFloat {
        fn default() -> Self {
            Self {
                value: ::core::default::Default::default(),
            }
        }
    }

    impl ArrayFloat {
        /// Creates a [ArrayFloatBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ArrayFloatBuilder<()> {
            ArrayFloatBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<::planus::Offset<[f32]>>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ArrayFloat>> for ArrayFloat {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayFloat> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ArrayFloat>> for ArrayFloat {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayFloat>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ArrayFloat> for ArrayFloat {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayFloat> {
            ArrayFloat::create(builder, &self.value)
        }
    }

    /// Builder for serializing an instance of the [ArrayFloat] type.
    ///
    /// Can be created using the [ArrayFloat::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ArrayFloatBuilder<State>(State);

    impl ArrayFloatBuilder<()> {
        /// Setter for the [`value` field](ArrayFloat#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ArrayFloatBuilder<(T0,)>
        where
            T0: ::planus::WriteAsOptional<::planus::Offset<[f32]>>,
        {
            ArrayFloatBuilder((value,))
        }

        /// Sets the [`value` field](ArrayFloat#structfield.value) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_null(self) -> ArrayFloatBuilder<((),)> {
            self.value(())
        }
    }

    impl<T0> ArrayFloatBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ArrayFloat].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayFloat>
        where
            Self: ::planus::WriteAsOffset<ArrayFloat>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[f32]>>>
        ::planus::WriteAs<::planus::Offset<ArrayFloat>> for ArrayFloatBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayFloat>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayFloat> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[f32]>>>
        ::planus::WriteAsOptional<::planus::Offset<ArrayFloat>> for ArrayFloatBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayFloat>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayFloat>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[f32]>>> ::planus::WriteAsOffset<ArrayFloat>
        for ArrayFloatBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayFloat> {
            let (v0,) = &self.0;
            ArrayFloat::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ArrayFloat].
    #[derive(Copy, Clone)]
    pub struct ArrayFloatRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ArrayFloatRef<'a> {
        /// Getter for the [`value` field](ArrayFloat#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, f32>>> {
            self.0.access(0, "ArrayFloat", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for ArrayFloatRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ArrayFloatRef");
            if let ::core::option::Option::Some(field_value) = self.value().transpose() {
                f.field("value", &field_value);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ArrayFloatRef<'a>> for ArrayFloat {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ArrayFloatRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: if let ::core::option::Option::Some(value) = value.value()? {
                    ::core::option::Option::Some(value.to_vec()?)
                } else {
                    ::core::option::Option::None
                },
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ArrayFloatRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ArrayFloatRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ArrayFloatRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ArrayFloat>> for ArrayFloat {
        type Value = ::planus::Offset<ArrayFloat>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ArrayFloat>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ArrayFloatRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[ArrayFloatRef]", "read_as_root", 0)
            })
        }
    }

    /// The table `ArrayDouble`
    ///
    /// Generated from these locations:
    /// * Table `ArrayDouble` in the file `schemas/f144_logdata.fbs:25`
    #[derive(Clone, Debug, PartialEq, PartialOrd, ::serde::Serialize, ::serde::Deserialize)]
    pub struct ArrayDouble {
        /// The field `value` in the table `ArrayDouble`
        pub value: ::core::option::Option<::planus::alloc::vec::Vec<f64>>,
    }

    #[allow(clippy::derivable_impls)]
    impl ::core::default::Default for ArrayDouble {
        fn default() -> Self {
            Self {
                value: ::core::default::Default::default(),
            }
        }
    }

    impl ArrayDouble {
        /// Creates a [ArrayDoubleBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ArrayDoubleBuilder<()> {
            ArrayDoubleBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_value: impl ::planus::WriteAsOptional<::planus::Offset<[f64]>>,
        ) -> ::planus::Offset<Self> {
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<6> =
                ::core::default::Default::default();
            if prepared_value.is_some() {
                table_writer.write_entry::<::planus::Offset<[f64]>>(0);
            }

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_value) = prepared_value {
                        object_writer.write::<_, _, 4>(&prepared_value);
                    }
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<ArrayDouble>> for ArrayDouble {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayDouble> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<ArrayDouble>> for ArrayDouble {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayDouble>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<ArrayDouble> for ArrayDouble {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayDouble> {
            ArrayDouble::create(builder, &self.value)
        }
    }

    /// Builder for serializing an instance of the [ArrayDouble] type.
    ///
    /// Can be created using the [ArrayDouble::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ArrayDoubleBuilder<State>(State);

    impl ArrayDoubleBuilder<()> {
        /// Setter for the [`value` field](ArrayDouble#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T0>(self, value: T0) -> ArrayDoubleBuilder<(T0,)>
        where
            T0: ::planus::WriteAsOptional<::planus::Offset<[f64]>>,
        {
            ArrayDoubleBuilder((value,))
        }

        /// Sets the [`value` field](ArrayDouble#structfield.value) to null.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value_as_null(self) -> ArrayDoubleBuilder<((),)> {
            self.value(())
        }
    }

    impl<T0> ArrayDoubleBuilder<(T0,)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [ArrayDouble].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayDouble>
        where
            Self: ::planus::WriteAsOffset<ArrayDouble>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[f64]>>>
        ::planus::WriteAs<::planus::Offset<ArrayDouble>> for ArrayDoubleBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayDouble>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayDouble> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[f64]>>>
        ::planus::WriteAsOptional<::planus::Offset<ArrayDouble>> for ArrayDoubleBuilder<(T0,)>
    {
        type Prepared = ::planus::Offset<ArrayDouble>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<ArrayDouble>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<T0: ::planus::WriteAsOptional<::planus::Offset<[f64]>>>
        ::planus::WriteAsOffset<ArrayDouble> for ArrayDoubleBuilder<(T0,)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<ArrayDouble> {
            let (v0,) = &self.0;
            ArrayDouble::create(builder, v0)
        }
    }

    /// Reference to a deserialized [ArrayDouble].
    #[derive(Copy, Clone)]
    pub struct ArrayDoubleRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> ArrayDoubleRef<'a> {
        /// Getter for the [`value` field](ArrayDouble#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<::core::option::Option<::planus::Vector<'a, f64>>> {
            self.0.access(0, "ArrayDouble", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for ArrayDoubleRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("ArrayDoubleRef");
            if let ::core::option::Option::Some(field_value) = self.value().transpose() {
                f.field("value", &field_value);
            }
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<ArrayDoubleRef<'a>> for ArrayDouble {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: ArrayDoubleRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: if let ::core::option::Option::Some(value) = value.value()? {
                    ::core::option::Option::Some(value.to_vec()?)
                } else {
                    ::core::option::Option::None
                },
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for ArrayDoubleRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for ArrayDoubleRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[ArrayDoubleRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<ArrayDouble>> for ArrayDouble {
        type Value = ::planus::Offset<ArrayDouble>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<ArrayDouble>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for ArrayDoubleRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[ArrayDoubleRef]", "read_as_root", 0)
            })
        }
    }

    /// The union `Value`
    ///
    /// Generated from these locations:
    /// * Union `Value` in the file `schemas/f144_logdata.fbs:27`
    #[derive(Clone, Debug, PartialEq, PartialOrd, ::serde::Serialize, ::serde::Deserialize)]
    pub enum Value {
        /// The variant of type `Byte` in the union `Value`
        Byte(::planus::alloc::boxed::Box<self::Byte>),

        /// The variant of type `UByte` in the union `Value`
        UByte(::planus::alloc::boxed::Box<self::UByte>),

        /// The variant of type `Short` in the union `Value`
        Short(::planus::alloc::boxed::Box<self::Short>),

        /// The variant of type `UShort` in the union `Value`
        UShort(::planus::alloc::boxed::Box<self::UShort>),

        /// The variant of type `Int` in the union `Value`
        Int(::planus::alloc::boxed::Box<self::Int>),

        /// The variant of type `UInt` in the union `Value`
        UInt(::planus::alloc::boxed::Box<self::UInt>),

        /// The variant of type `Long` in the union `Value`
        Long(::planus::alloc::boxed::Box<self::Long>),

        /// The variant of type `ULong` in the union `Value`
        ULong(::planus::alloc::boxed::Box<self::ULong>),

        /// The variant of type `Float` in the union `Value`
        Float(::planus::alloc::boxed::Box<self::Float>),

        /// The variant of type `Double` in the union `Value`
        Double(::planus::alloc::boxed::Box<self::Double>),

        /// The variant of type `ArrayByte` in the union `Value`
        ArrayByte(::planus::alloc::boxed::Box<self::ArrayByte>),

        /// The variant of type `ArrayUByte` in the union `Value`
        ArrayUByte(::planus::alloc::boxed::Box<self::ArrayUByte>),

        /// The variant of type `ArrayShort` in the union `Value`
        ArrayShort(::planus::alloc::boxed::Box<self::ArrayShort>),

        /// The variant of type `ArrayUShort` in the union `Value`
        ArrayUShort(::planus::alloc::boxed::Box<self::ArrayUShort>),

        /// The variant of type `ArrayInt` in the union `Value`
        ArrayInt(::planus::alloc::boxed::Box<self::ArrayInt>),

        /// The variant of type `ArrayUInt` in the union `Value`
        ArrayUInt(::planus::alloc::boxed::Box<self::ArrayUInt>),

        /// The variant of type `ArrayLong` in the union `Value`
        ArrayLong(::planus::alloc::boxed::Box<self::ArrayLong>),

        /// The variant of type `ArrayULong` in the union `Value`
        ArrayULong(::planus::alloc::boxed::Box<self::ArrayULong>),

        /// The variant of type `ArrayFloat` in the union `Value`
        ArrayFloat(::planus::alloc::boxed::Box<self::ArrayFloat>),

        /// The variant of type `ArrayDouble` in the union `Value`
        ArrayDouble(::planus::alloc::boxed::Box<self::ArrayDouble>),
    }

    impl Value {
        /// Creates a [ValueBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> ValueBuilder<::planus::Uninitialized> {
            ValueBuilder(::planus::Uninitialized)
        }

        #[inline]
        pub fn create_byte(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::Byte>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(1, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_u_byte(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::UByte>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(2, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_short(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::Short>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(3, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_u_short(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::UShort>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(4, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_int(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::Int>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(5, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_u_int(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::UInt>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(6, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_long(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::Long>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(7, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_u_long(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ULong>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(8, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_float(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::Float>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(9, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_double(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::Double>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(10, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_array_byte(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ArrayByte>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(11, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_array_u_byte(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ArrayUByte>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(12, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_array_short(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ArrayShort>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(13, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_array_u_short(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ArrayUShort>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(14, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_array_int(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ArrayInt>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(15, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_array_u_int(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ArrayUInt>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(16, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_array_long(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ArrayLong>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(17, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_array_u_long(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ArrayULong>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(18, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_array_float(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ArrayFloat>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(19, value.prepare(builder).downcast())
        }

        #[inline]
        pub fn create_array_double(
            builder: &mut ::planus::Builder,
            value: impl ::planus::WriteAsOffset<self::ArrayDouble>,
        ) -> ::planus::UnionOffset<Self> {
            ::planus::UnionOffset::new(20, value.prepare(builder).downcast())
        }
    }

    impl ::planus::WriteAsUnion<Value> for Value {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Self> {
            match self {
                Self::Byte(value) => Self::create_byte(builder, value),
                Self::UByte(value) => Self::create_u_byte(builder, value),
                Self::Short(value) => Self::create_short(builder, value),
                Self::UShort(value) => Self::create_u_short(builder, value),
                Self::Int(value) => Self::create_int(builder, value),
                Self::UInt(value) => Self::create_u_int(builder, value),
                Self::Long(value) => Self::create_long(builder, value),
                Self::ULong(value) => Self::create_u_long(builder, value),
                Self::Float(value) => Self::create_float(builder, value),
                Self::Double(value) => Self::create_double(builder, value),
                Self::ArrayByte(value) => Self::create_array_byte(builder, value),
                Self::ArrayUByte(value) => Self::create_array_u_byte(builder, value),
                Self::ArrayShort(value) => Self::create_array_short(builder, value),
                Self::ArrayUShort(value) => Self::create_array_u_short(builder, value),
                Self::ArrayInt(value) => Self::create_array_int(builder, value),
                Self::ArrayUInt(value) => Self::create_array_u_int(builder, value),
                Self::ArrayLong(value) => Self::create_array_long(builder, value),
                Self::ArrayULong(value) => Self::create_array_u_long(builder, value),
                Self::ArrayFloat(value) => Self::create_array_float(builder, value),
                Self::ArrayDouble(value) => Self::create_array_double(builder, value),
            }
        }
    }

    impl ::planus::WriteAsOptionalUnion<Value> for Value {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Self>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }

    /// Builder for serializing an instance of the [Value] type.
    ///
    /// Can be created using the [Value::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct ValueBuilder<T>(T);

    impl ValueBuilder<::planus::Uninitialized> {
        /// Creates an instance of the [`Byte` variant](Value#variant.Byte).
        #[inline]
        pub fn byte<T>(self, value: T) -> ValueBuilder<::planus::Initialized<1, T>>
        where
            T: ::planus::WriteAsOffset<self::Byte>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`UByte` variant](Value#variant.UByte).
        #[inline]
        pub fn u_byte<T>(self, value: T) -> ValueBuilder<::planus::Initialized<2, T>>
        where
            T: ::planus::WriteAsOffset<self::UByte>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`Short` variant](Value#variant.Short).
        #[inline]
        pub fn short<T>(self, value: T) -> ValueBuilder<::planus::Initialized<3, T>>
        where
            T: ::planus::WriteAsOffset<self::Short>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`UShort` variant](Value#variant.UShort).
        #[inline]
        pub fn u_short<T>(self, value: T) -> ValueBuilder<::planus::Initialized<4, T>>
        where
            T: ::planus::WriteAsOffset<self::UShort>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`Int` variant](Value#variant.Int).
        #[inline]
        pub fn int<T>(self, value: T) -> ValueBuilder<::planus::Initialized<5, T>>
        where
            T: ::planus::WriteAsOffset<self::Int>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`UInt` variant](Value#variant.UInt).
        #[inline]
        pub fn u_int<T>(self, value: T) -> ValueBuilder<::planus::Initialized<6, T>>
        where
            T: ::planus::WriteAsOffset<self::UInt>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`Long` variant](Value#variant.Long).
        #[inline]
        pub fn long<T>(self, value: T) -> ValueBuilder<::planus::Initialized<7, T>>
        where
            T: ::planus::WriteAsOffset<self::Long>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ULong` variant](Value#variant.ULong).
        #[inline]
        pub fn u_long<T>(self, value: T) -> ValueBuilder<::planus::Initialized<8, T>>
        where
            T: ::planus::WriteAsOffset<self::ULong>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`Float` variant](Value#variant.Float).
        #[inline]
        pub fn float<T>(self, value: T) -> ValueBuilder<::planus::Initialized<9, T>>
        where
            T: ::planus::WriteAsOffset<self::Float>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`Double` variant](Value#variant.Double).
        #[inline]
        pub fn double<T>(self, value: T) -> ValueBuilder<::planus::Initialized<10, T>>
        where
            T: ::planus::WriteAsOffset<self::Double>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ArrayByte` variant](Value#variant.ArrayByte).
        #[inline]
        pub fn array_byte<T>(self, value: T) -> ValueBuilder<::planus::Initialized<11, T>>
        where
            T: ::planus::WriteAsOffset<self::ArrayByte>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ArrayUByte` variant](Value#variant.ArrayUByte).
        #[inline]
        pub fn array_u_byte<T>(self, value: T) -> ValueBuilder<::planus::Initialized<12, T>>
        where
            T: ::planus::WriteAsOffset<self::ArrayUByte>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ArrayShort` variant](Value#variant.ArrayShort).
        #[inline]
        pub fn array_short<T>(self, value: T) -> ValueBuilder<::planus::Initialized<13, T>>
        where
            T: ::planus::WriteAsOffset<self::ArrayShort>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ArrayUShort` variant](Value#variant.ArrayUShort).
        #[inline]
        pub fn array_u_short<T>(self, value: T) -> ValueBuilder<::planus::Initialized<14, T>>
        where
            T: ::planus::WriteAsOffset<self::ArrayUShort>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ArrayInt` variant](Value#variant.ArrayInt).
        #[inline]
        pub fn array_int<T>(self, value: T) -> ValueBuilder<::planus::Initialized<15, T>>
        where
            T: ::planus::WriteAsOffset<self::ArrayInt>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ArrayUInt` variant](Value#variant.ArrayUInt).
        #[inline]
        pub fn array_u_int<T>(self, value: T) -> ValueBuilder<::planus::Initialized<16, T>>
        where
            T: ::planus::WriteAsOffset<self::ArrayUInt>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ArrayLong` variant](Value#variant.ArrayLong).
        #[inline]
        pub fn array_long<T>(self, value: T) -> ValueBuilder<::planus::Initialized<17, T>>
        where
            T: ::planus::WriteAsOffset<self::ArrayLong>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ArrayULong` variant](Value#variant.ArrayULong).
        #[inline]
        pub fn array_u_long<T>(self, value: T) -> ValueBuilder<::planus::Initialized<18, T>>
        where
            T: ::planus::WriteAsOffset<self::ArrayULong>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ArrayFloat` variant](Value#variant.ArrayFloat).
        #[inline]
        pub fn array_float<T>(self, value: T) -> ValueBuilder<::planus::Initialized<19, T>>
        where
            T: ::planus::WriteAsOffset<self::ArrayFloat>,
        {
            ValueBuilder(::planus::Initialized(value))
        }

        /// Creates an instance of the [`ArrayDouble` variant](Value#variant.ArrayDouble).
        #[inline]
        pub fn array_double<T>(self, value: T) -> ValueBuilder<::planus::Initialized<20, T>>
        where
            T: ::planus::WriteAsOffset<self::ArrayDouble>,
        {
            ValueBuilder(::planus::Initialized(value))
        }
    }

    impl<const N: u8, T> ValueBuilder<::planus::Initialized<N, T>> {
        /// Finish writing the builder to get an [UnionOffset](::planus::UnionOffset) to a serialized [Value].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value>
        where
            Self: ::planus::WriteAsUnion<Value>,
        {
            ::planus::WriteAsUnion::prepare(&self, builder)
        }
    }

    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<1, T>>
    where
        T: ::planus::WriteAsOffset<self::Byte>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(1, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<1, T>>
    where
        T: ::planus::WriteAsOffset<self::Byte>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<2, T>>
    where
        T: ::planus::WriteAsOffset<self::UByte>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(2, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<2, T>>
    where
        T: ::planus::WriteAsOffset<self::UByte>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<3, T>>
    where
        T: ::planus::WriteAsOffset<self::Short>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(3, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<3, T>>
    where
        T: ::planus::WriteAsOffset<self::Short>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<4, T>>
    where
        T: ::planus::WriteAsOffset<self::UShort>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(4, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<4, T>>
    where
        T: ::planus::WriteAsOffset<self::UShort>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<5, T>>
    where
        T: ::planus::WriteAsOffset<self::Int>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(5, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<5, T>>
    where
        T: ::planus::WriteAsOffset<self::Int>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<6, T>>
    where
        T: ::planus::WriteAsOffset<self::UInt>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(6, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<6, T>>
    where
        T: ::planus::WriteAsOffset<self::UInt>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<7, T>>
    where
        T: ::planus::WriteAsOffset<self::Long>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(7, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<7, T>>
    where
        T: ::planus::WriteAsOffset<self::Long>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<8, T>>
    where
        T: ::planus::WriteAsOffset<self::ULong>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(8, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<8, T>>
    where
        T: ::planus::WriteAsOffset<self::ULong>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<9, T>>
    where
        T: ::planus::WriteAsOffset<self::Float>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(9, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<9, T>>
    where
        T: ::planus::WriteAsOffset<self::Float>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<10, T>>
    where
        T: ::planus::WriteAsOffset<self::Double>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(10, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<10, T>>
    where
        T: ::planus::WriteAsOffset<self::Double>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<11, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayByte>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(11, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<11, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayByte>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<12, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayUByte>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(12, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<12, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayUByte>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<13, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayShort>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(13, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<13, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayShort>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<14, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayUShort>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(14, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<14, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayUShort>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<15, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayInt>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(15, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<15, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayInt>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<16, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayUInt>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(16, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<16, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayUInt>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<17, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayLong>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(17, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<17, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayLong>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<18, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayULong>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(18, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<18, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayULong>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<19, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayFloat>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(19, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<19, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayFloat>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }
    impl<T> ::planus::WriteAsUnion<Value> for ValueBuilder<::planus::Initialized<20, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayDouble>,
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::UnionOffset<Value> {
            ::planus::UnionOffset::new(20, (self.0).0.prepare(builder).downcast())
        }
    }

    impl<T> ::planus::WriteAsOptionalUnion<Value> for ValueBuilder<::planus::Initialized<20, T>>
    where
        T: ::planus::WriteAsOffset<self::ArrayDouble>,
    {
        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::UnionOffset<Value>> {
            ::core::option::Option::Some(::planus::WriteAsUnion::prepare(self, builder))
        }
    }

    /// Reference to a deserialized [Value].
    #[derive(Copy, Clone, Debug)]
    pub enum ValueRef<'a> {
        Byte(self::ByteRef<'a>),
        UByte(self::UByteRef<'a>),
        Short(self::ShortRef<'a>),
        UShort(self::UShortRef<'a>),
        Int(self::IntRef<'a>),
        UInt(self::UIntRef<'a>),
        Long(self::LongRef<'a>),
        ULong(self::ULongRef<'a>),
        Float(self::FloatRef<'a>),
        Double(self::DoubleRef<'a>),
        ArrayByte(self::ArrayByteRef<'a>),
        ArrayUByte(self::ArrayUByteRef<'a>),
        ArrayShort(self::ArrayShortRef<'a>),
        ArrayUShort(self::ArrayUShortRef<'a>),
        ArrayInt(self::ArrayIntRef<'a>),
        ArrayUInt(self::ArrayUIntRef<'a>),
        ArrayLong(self::ArrayLongRef<'a>),
        ArrayULong(self::ArrayULongRef<'a>),
        ArrayFloat(self::ArrayFloatRef<'a>),
        ArrayDouble(self::ArrayDoubleRef<'a>),
    }

    impl<'a> ::core::convert::TryFrom<ValueRef<'a>> for Value {
        type Error = ::planus::Error;

        fn try_from(value: ValueRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(match value {
                ValueRef::Byte(value) => Self::Byte(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::UByte(value) => Self::UByte(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::Short(value) => Self::Short(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::UShort(value) => Self::UShort(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::Int(value) => Self::Int(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::UInt(value) => Self::UInt(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::Long(value) => Self::Long(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::ULong(value) => Self::ULong(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::Float(value) => Self::Float(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::Double(value) => Self::Double(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::ArrayByte(value) => Self::ArrayByte(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::ArrayUByte(value) => Self::ArrayUByte(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::ArrayShort(value) => Self::ArrayShort(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::ArrayUShort(value) => Self::ArrayUShort(
                    ::planus::alloc::boxed::Box::new(::core::convert::TryFrom::try_from(value)?),
                ),

                ValueRef::ArrayInt(value) => Self::ArrayInt(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::ArrayUInt(value) => Self::ArrayUInt(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::ArrayLong(value) => Self::ArrayLong(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::ArrayULong(value) => Self::ArrayULong(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::ArrayFloat(value) => Self::ArrayFloat(::planus::alloc::boxed::Box::new(
                    ::core::convert::TryFrom::try_from(value)?,
                )),

                ValueRef::ArrayDouble(value) => Self::ArrayDouble(
                    ::planus::alloc::boxed::Box::new(::core::convert::TryFrom::try_from(value)?),
                ),
            })
        }
    }

    impl<'a> ::planus::TableReadUnion<'a> for ValueRef<'a> {
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            tag: u8,
            field_offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            match tag {
                1 => ::core::result::Result::Ok(Self::Byte(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                2 => ::core::result::Result::Ok(Self::UByte(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                3 => ::core::result::Result::Ok(Self::Short(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                4 => ::core::result::Result::Ok(Self::UShort(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                5 => ::core::result::Result::Ok(Self::Int(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                6 => ::core::result::Result::Ok(Self::UInt(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                7 => ::core::result::Result::Ok(Self::Long(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                8 => ::core::result::Result::Ok(Self::ULong(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                9 => ::core::result::Result::Ok(Self::Float(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                10 => ::core::result::Result::Ok(Self::Double(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                11 => ::core::result::Result::Ok(Self::ArrayByte(
                    ::planus::TableRead::from_buffer(buffer, field_offset)?,
                )),
                12 => ::core::result::Result::Ok(Self::ArrayUByte(
                    ::planus::TableRead::from_buffer(buffer, field_offset)?,
                )),
                13 => ::core::result::Result::Ok(Self::ArrayShort(
                    ::planus::TableRead::from_buffer(buffer, field_offset)?,
                )),
                14 => ::core::result::Result::Ok(Self::ArrayUShort(
                    ::planus::TableRead::from_buffer(buffer, field_offset)?,
                )),
                15 => ::core::result::Result::Ok(Self::ArrayInt(::planus::TableRead::from_buffer(
                    buffer,
                    field_offset,
                )?)),
                16 => ::core::result::Result::Ok(Self::ArrayUInt(
                    ::planus::TableRead::from_buffer(buffer, field_offset)?,
                )),
                17 => ::core::result::Result::Ok(Self::ArrayLong(
                    ::planus::TableRead::from_buffer(buffer, field_offset)?,
                )),
                18 => ::core::result::Result::Ok(Self::ArrayULong(
                    ::planus::TableRead::from_buffer(buffer, field_offset)?,
                )),
                19 => ::core::result::Result::Ok(Self::ArrayFloat(
                    ::planus::TableRead::from_buffer(buffer, field_offset)?,
                )),
                20 => ::core::result::Result::Ok(Self::ArrayDouble(
                    ::planus::TableRead::from_buffer(buffer, field_offset)?,
                )),
                _ => ::core::result::Result::Err(::planus::errors::ErrorKind::UnknownUnionTag {
                    tag,
                }),
            }
        }
    }

    impl<'a> ::planus::VectorReadUnion<'a> for ValueRef<'a> {
        const VECTOR_NAME: &'static str = "[ValueRef]";
    }

    /// The table `f144_LogData`
    ///
    /// Generated from these locations:
    /// * Table `f144_LogData` in the file `schemas/f144_logdata.fbs:50`
    #[derive(Clone, Debug, PartialEq, PartialOrd, ::serde::Serialize, ::serde::Deserialize)]
    pub struct F144LogData {
        /// The field `source_name` in the table `f144_LogData`
        pub source_name: ::planus::alloc::string::String,
        /// The field `timestamp` in the table `f144_LogData`
        pub timestamp: i64,
        /// The field `value` in the table `f144_LogData`
        pub value: self::Value,
    }

    impl F144LogData {
        /// Creates a [F144LogDataBuilder] for serializing an instance of this table.
        #[inline]
        pub fn builder() -> F144LogDataBuilder<()> {
            F144LogDataBuilder(())
        }

        #[allow(clippy::too_many_arguments)]
        pub fn create(
            builder: &mut ::planus::Builder,
            field_source_name: impl ::planus::WriteAs<::planus::Offset<str>>,
            field_timestamp: impl ::planus::WriteAsDefault<i64, i64>,
            field_value: impl ::planus::WriteAsUnion<self::Value>,
        ) -> ::planus::Offset<Self> {
            let prepared_source_name = field_source_name.prepare(builder);
            let prepared_timestamp = field_timestamp.prepare(builder, &0);
            let prepared_value = field_value.prepare(builder);

            let mut table_writer: ::planus::table_writer::TableWriter<12> =
                ::core::default::Default::default();
            if prepared_timestamp.is_some() {
                table_writer.write_entry::<i64>(1);
            }
            table_writer.write_entry::<::planus::Offset<str>>(0);
            table_writer.write_entry::<::planus::Offset<self::Value>>(3);
            table_writer.write_entry::<u8>(2);

            unsafe {
                table_writer.finish(builder, |object_writer| {
                    if let ::core::option::Option::Some(prepared_timestamp) = prepared_timestamp {
                        object_writer.write::<_, _, 8>(&prepared_timestamp);
                    }
                    object_writer.write::<_, _, 4>(&prepared_source_name);
                    object_writer.write::<_, _, 4>(&prepared_value.offset());
                    object_writer.write::<_, _, 1>(&prepared_value.tag());
                });
            }
            builder.current_offset()
        }
    }

    impl ::planus::WriteAs<::planus::Offset<F144LogData>> for F144LogData {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<F144LogData> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl ::planus::WriteAsOptional<::planus::Offset<F144LogData>> for F144LogData {
        type Prepared = ::planus::Offset<Self>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<F144LogData>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl ::planus::WriteAsOffset<F144LogData> for F144LogData {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<F144LogData> {
            F144LogData::create(builder, &self.source_name, self.timestamp, &self.value)
        }
    }

    /// Builder for serializing an instance of the [F144LogData] type.
    ///
    /// Can be created using the [F144LogData::builder] method.
    #[derive(Debug)]
    #[must_use]
    pub struct F144LogDataBuilder<State>(State);

    impl F144LogDataBuilder<()> {
        /// Setter for the [`source_name` field](F144LogData#structfield.source_name).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn source_name<T0>(self, value: T0) -> F144LogDataBuilder<(T0,)>
        where
            T0: ::planus::WriteAs<::planus::Offset<str>>,
        {
            F144LogDataBuilder((value,))
        }
    }

    impl<T0> F144LogDataBuilder<(T0,)> {
        /// Setter for the [`timestamp` field](F144LogData#structfield.timestamp).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn timestamp<T1>(self, value: T1) -> F144LogDataBuilder<(T0, T1)>
        where
            T1: ::planus::WriteAsDefault<i64, i64>,
        {
            let (v0,) = self.0;
            F144LogDataBuilder((v0, value))
        }

        /// Sets the [`timestamp` field](F144LogData#structfield.timestamp) to the default value.
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn timestamp_as_default(self) -> F144LogDataBuilder<(T0, ::planus::DefaultValue)> {
            self.timestamp(::planus::DefaultValue)
        }
    }

    impl<T0, T1> F144LogDataBuilder<(T0, T1)> {
        /// Setter for the [`value` field](F144LogData#structfield.value).
        #[inline]
        #[allow(clippy::type_complexity)]
        pub fn value<T2>(self, value: T2) -> F144LogDataBuilder<(T0, T1, T2)>
        where
            T2: ::planus::WriteAsUnion<self::Value>,
        {
            let (v0, v1) = self.0;
            F144LogDataBuilder((v0, v1, value))
        }
    }

    impl<T0, T1, T2> F144LogDataBuilder<(T0, T1, T2)> {
        /// Finish writing the builder to get an [Offset](::planus::Offset) to a serialized [F144LogData].
        #[inline]
        pub fn finish(self, builder: &mut ::planus::Builder) -> ::planus::Offset<F144LogData>
        where
            Self: ::planus::WriteAsOffset<F144LogData>,
        {
            ::planus::WriteAsOffset::prepare(&self, builder)
        }
    }

    impl<
            T0: ::planus::WriteAs<::planus::Offset<str>>,
            T1: ::planus::WriteAsDefault<i64, i64>,
            T2: ::planus::WriteAsUnion<self::Value>,
        > ::planus::WriteAs<::planus::Offset<F144LogData>> for F144LogDataBuilder<(T0, T1, T2)>
    {
        type Prepared = ::planus::Offset<F144LogData>;

        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<F144LogData> {
            ::planus::WriteAsOffset::prepare(self, builder)
        }
    }

    impl<
            T0: ::planus::WriteAs<::planus::Offset<str>>,
            T1: ::planus::WriteAsDefault<i64, i64>,
            T2: ::planus::WriteAsUnion<self::Value>,
        > ::planus::WriteAsOptional<::planus::Offset<F144LogData>>
        for F144LogDataBuilder<(T0, T1, T2)>
    {
        type Prepared = ::planus::Offset<F144LogData>;

        #[inline]
        fn prepare(
            &self,
            builder: &mut ::planus::Builder,
        ) -> ::core::option::Option<::planus::Offset<F144LogData>> {
            ::core::option::Option::Some(::planus::WriteAsOffset::prepare(self, builder))
        }
    }

    impl<
            T0: ::planus::WriteAs<::planus::Offset<str>>,
            T1: ::planus::WriteAsDefault<i64, i64>,
            T2: ::planus::WriteAsUnion<self::Value>,
        > ::planus::WriteAsOffset<F144LogData> for F144LogDataBuilder<(T0, T1, T2)>
    {
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> ::planus::Offset<F144LogData> {
            let (v0, v1, v2) = &self.0;
            F144LogData::create(builder, v0, v1, v2)
        }
    }

    /// Reference to a deserialized [F144LogData].
    #[derive(Copy, Clone)]
    pub struct F144LogDataRef<'a>(#[allow(dead_code)] ::planus::table_reader::Table<'a>);

    impl<'a> F144LogDataRef<'a> {
        /// Getter for the [`source_name` field](F144LogData#structfield.source_name).
        #[inline]
        pub fn source_name(&self) -> ::planus::Result<&'a ::core::primitive::str> {
            self.0.access_required(0, "F144LogData", "source_name")
        }

        /// Getter for the [`timestamp` field](F144LogData#structfield.timestamp).
        #[inline]
        pub fn timestamp(&self) -> ::planus::Result<i64> {
            ::core::result::Result::Ok(self.0.access(1, "F144LogData", "timestamp")?.unwrap_or(0))
        }

        /// Getter for the [`value` field](F144LogData#structfield.value).
        #[inline]
        pub fn value(&self) -> ::planus::Result<self::ValueRef<'a>> {
            self.0.access_union_required(2, "F144LogData", "value")
        }
    }

    impl<'a> ::core::fmt::Debug for F144LogDataRef<'a> {
        fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
            let mut f = f.debug_struct("F144LogDataRef");
            f.field("source_name", &self.source_name());
            f.field("timestamp", &self.timestamp());
            f.field("value", &self.value());
            f.finish()
        }
    }

    impl<'a> ::core::convert::TryFrom<F144LogDataRef<'a>> for F144LogData {
        type Error = ::planus::Error;

        #[allow(unreachable_code)]
        fn try_from(value: F144LogDataRef<'a>) -> ::planus::Result<Self> {
            ::core::result::Result::Ok(Self {
                source_name: ::core::convert::Into::into(value.source_name()?),
                timestamp: ::core::convert::TryInto::try_into(value.timestamp()?)?,
                value: ::core::convert::TryInto::try_into(value.value()?)?,
            })
        }
    }

    impl<'a> ::planus::TableRead<'a> for F144LogDataRef<'a> {
        #[inline]
        fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::core::result::Result<Self, ::planus::errors::ErrorKind> {
            ::core::result::Result::Ok(Self(::planus::table_reader::Table::from_buffer(
                buffer, offset,
            )?))
        }
    }

    impl<'a> ::planus::VectorReadInner<'a> for F144LogDataRef<'a> {
        type Error = ::planus::Error;
        const STRIDE: usize = 4;

        unsafe fn from_buffer(
            buffer: ::planus::SliceWithStartOffset<'a>,
            offset: usize,
        ) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(buffer, offset).map_err(|error_kind| {
                error_kind.with_error_location("[F144LogDataRef]", "get", buffer.offset_from_start)
            })
        }
    }

    /// # Safety
    /// The planus compiler generates implementations that initialize
    /// the bytes in `write_values`.
    unsafe impl ::planus::VectorWrite<::planus::Offset<F144LogData>> for F144LogData {
        type Value = ::planus::Offset<F144LogData>;
        const STRIDE: usize = 4;
        #[inline]
        fn prepare(&self, builder: &mut ::planus::Builder) -> Self::Value {
            ::planus::WriteAs::prepare(self, builder)
        }

        #[inline]
        unsafe fn write_values(
            values: &[::planus::Offset<F144LogData>],
            bytes: *mut ::core::mem::MaybeUninit<u8>,
            buffer_position: u32,
        ) {
            let bytes = bytes as *mut [::core::mem::MaybeUninit<u8>; 4];
            for (i, v) in ::core::iter::Iterator::enumerate(values.iter()) {
                ::planus::WriteAsPrimitive::write(
                    v,
                    ::planus::Cursor::new(unsafe { &mut *bytes.add(i) }),
                    buffer_position - (Self::STRIDE * i) as u32,
                );
            }
        }
    }

    impl<'a> ::planus::ReadAsRoot<'a> for F144LogDataRef<'a> {
        fn read_as_root(slice: &'a [u8]) -> ::planus::Result<Self> {
            ::planus::TableRead::from_buffer(
                ::planus::SliceWithStartOffset {
                    buffer: slice,
                    offset_from_start: 0,
                },
                0,
            )
            .map_err(|error_kind| {
                error_kind.with_error_location("[F144LogDataRef]", "read_as_root", 0)
            })
        }
    }
}
