//! Typed indices and dense maps keyed by them.
//!
//! Every entity of the IR (`Block`, `Value`, ...) is a `u32` newtype made by
//! [`entity!`](crate::entity!). Maps keyed by an entity are [`EntityVec`]s, so a `Block` can
//! never index a table of `Value`s by mistake (the habit Cranelift's
//! `cranelift-entity` made popular; this is our own small version).

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// An entity reference: a dense `u32` index with a type of its own.
pub trait EntityRef: Copy + Eq + Ord + std::hash::Hash + fmt::Debug + 'static {
    /// Makes the entity with index `i`.
    fn new(i: usize) -> Self;
    /// The entity's index.
    fn index(self) -> usize;
}

/// Declares a typed index. `entity!(Block, "b")` makes `Block(u32)` that
/// prints as `b7`.
#[macro_export]
macro_rules! entity {
    ($(#[$m:meta])* $name:ident, $prefix:expr) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $crate::entity::EntityRef for $name {
            fn new(i: usize) -> Self {
                $name(u32::try_from(i).expect("entity index overflows u32"))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }
    };
}

/// A dense map from an entity to `V`, backed by a `Vec`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct EntityVec<K: EntityRef, V> {
    items: Vec<V>,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V> Default for EntityVec<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V: fmt::Debug> fmt::Debug for EntityVec<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: EntityRef, V> EntityVec<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        EntityVec { items: Vec::new(), _key: PhantomData }
    }

    /// An empty map with room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        EntityVec { items: Vec::with_capacity(n), _key: PhantomData }
    }

    /// A map of `n` copies of `v`, keyed `0..n`.
    pub fn from_elem(v: V, n: usize) -> Self
    where
        V: Clone,
    {
        EntityVec { items: vec![v; n], _key: PhantomData }
    }

    /// Appends `v` and returns its key.
    pub fn push(&mut self, v: V) -> K {
        let k = K::new(self.items.len());
        self.items.push(v);
        k
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The keys `0..len`, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator + 'static {
        (0..self.items.len()).map(K::new)
    }

    /// Keys and values, in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }

    /// Keys and mutable values, in key order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> {
        self.items.iter_mut().enumerate().map(|(i, v)| (K::new(i), v))
    }

    /// The values, in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> {
        self.items.iter()
    }

    /// Mutable values, in key order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.items.iter_mut()
    }

    /// The entry for `k`, if `k` is in range.
    pub fn get(&self, k: K) -> Option<&V> {
        self.items.get(k.index())
    }

    /// Grows the map with `fill` so that `k` is in range.
    pub fn ensure(&mut self, k: K, fill: V)
    where
        V: Clone,
    {
        if k.index() >= self.items.len() {
            self.items.resize(k.index() + 1, fill);
        }
    }
}

impl<K: EntityRef, V> Index<K> for EntityVec<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        &self.items[k.index()]
    }
}

impl<K: EntityRef, V> IndexMut<K> for EntityVec<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.items[k.index()]
    }
}

/// A set of entities, as a bit vector. Two sets are equal when they have
/// the same members, whatever their capacities.
#[derive(Clone, Debug, Default)]
pub struct EntitySet<K: EntityRef> {
    bits: Vec<u64>,
    _key: PhantomData<K>,
}

impl<K: EntityRef> PartialEq for EntitySet<K> {
    fn eq(&self, other: &Self) -> bool {
        let n = self.bits.len().max(other.bits.len());
        (0..n).all(|i| self.bits.get(i).copied().unwrap_or(0) == other.bits.get(i).copied().unwrap_or(0))
    }
}

impl<K: EntityRef> Eq for EntitySet<K> {}

impl<K: EntityRef> EntitySet<K> {
    /// An empty set able to hold keys `0..n` without growing.
    pub fn with_capacity(n: usize) -> Self {
        EntitySet { bits: vec![0; n.div_ceil(64)], _key: PhantomData }
    }

    /// Adds `k`; returns true when it was not there before.
    pub fn insert(&mut self, k: K) -> bool {
        let (w, b) = (k.index() / 64, k.index() % 64);
        if w >= self.bits.len() {
            self.bits.resize(w + 1, 0);
        }
        let was = self.bits[w] & (1 << b) != 0;
        self.bits[w] |= 1 << b;
        !was
    }

    /// Removes `k`; returns true when it was there.
    pub fn remove(&mut self, k: K) -> bool {
        let (w, b) = (k.index() / 64, k.index() % 64);
        if w >= self.bits.len() {
            return false;
        }
        let was = self.bits[w] & (1 << b) != 0;
        self.bits[w] &= !(1 << b);
        was
    }

    /// True when `k` is in the set.
    pub fn contains(&self, k: K) -> bool {
        let (w, b) = (k.index() / 64, k.index() % 64);
        w < self.bits.len() && self.bits[w] & (1 << b) != 0
    }

    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            // Visit only the set bits: clear the lowest one each step.
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(K::new(w * 64 + b))
            })
        })
    }

    /// Adds every member of `from` (`self |= from`); returns true when
    /// `self` grew.
    pub fn union_with(&mut self, from: &EntitySet<K>) -> bool {
        if self.bits.len() < from.bits.len() {
            self.bits.resize(from.bits.len(), 0);
        }
        let mut grew = false;
        for (a, &b) in self.bits.iter_mut().zip(&from.bits) {
            let new = *a | b;
            grew |= new != *a;
            *a = new;
        }
        grew
    }

    /// Adds every member of `from` that is not in `except`
    /// (`self |= from - except`); returns true when `self` grew.
    pub fn union_with_difference(&mut self, from: &EntitySet<K>, except: &EntitySet<K>) -> bool {
        if self.bits.len() < from.bits.len() {
            self.bits.resize(from.bits.len(), 0);
        }
        let mut grew = false;
        for (i, (a, &b)) in self.bits.iter_mut().zip(&from.bits).enumerate() {
            let new = *a | (b & !except.bits.get(i).copied().unwrap_or(0));
            grew |= new != *a;
            *a = new;
        }
        grew
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&w| w == 0)
    }
}

/// A set of entities as a sorted vector of its members: memory and merge
/// time proportional to the number of members, not to the largest key.
/// For the many small sets of a large function (live sets of each block
/// and after each instruction), where one [`EntitySet`] per set would cost
/// (blocks or instructions) × (values) bits. Production liveness analyses
/// use sparse sets for the same reason (GCC's chunked bitmaps, LLVM's
/// `SparseBitVector`). Same method names as [`EntitySet`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SparseSet<K: EntityRef> {
    keys: Vec<K>,
}

impl<K: EntityRef> Default for SparseSet<K> {
    fn default() -> Self {
        SparseSet::new()
    }
}

impl<K: EntityRef> SparseSet<K> {
    /// The empty set.
    pub fn new() -> Self {
        SparseSet { keys: Vec::new() }
    }

    /// Adds `k`; returns true when it was not there before.
    pub fn insert(&mut self, k: K) -> bool {
        match self.keys.binary_search(&k) {
            Ok(_) => false,
            Err(i) => {
                self.keys.insert(i, k);
                true
            }
        }
    }

    /// Removes `k`; returns true when it was there.
    pub fn remove(&mut self, k: K) -> bool {
        match self.keys.binary_search(&k) {
            Ok(i) => {
                self.keys.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    /// True when `k` is in the set.
    pub fn contains(&self, k: K) -> bool {
        self.keys.binary_search(&k).is_ok()
    }

    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.keys.iter().copied()
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Adds every member of `from` (`self |= from`); returns true when
    /// `self` grew.
    pub fn union_with(&mut self, from: &SparseSet<K>) -> bool {
        self.union_with_difference(from, &SparseSet::new())
    }

    /// Adds every member of `from` that is not in `except`
    /// (`self |= from - except`), by one merge; returns true when `self`
    /// grew.
    pub fn union_with_difference(&mut self, from: &SparseSet<K>, except: &SparseSet<K>) -> bool {
        let mut out = Vec::with_capacity(self.keys.len() + from.keys.len());
        let (a, b, x) = (&self.keys, &from.keys, &except.keys);
        let (mut i, mut j, mut e) = (0, 0, 0);
        let mut grew = false;
        while j < b.len() {
            let k = b[j];
            while e < x.len() && x[e] < k {
                e += 1;
            }
            if e < x.len() && x[e] == k {
                j += 1;
                continue;
            }
            while i < a.len() && a[i] < k {
                out.push(a[i]);
                i += 1;
            }
            if i < a.len() && a[i] == k {
                i += 1;
            } else {
                grew = true;
            }
            out.push(k);
            j += 1;
        }
        if !grew {
            return false;
        }
        out.extend_from_slice(&a[i..]);
        self.keys = out;
        true
    }
}

impl<K: EntityRef> FromIterator<K> for SparseSet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut keys: Vec<K> = iter.into_iter().collect();
        keys.sort_unstable();
        keys.dedup();
        SparseSet { keys }
    }
}

impl<K: EntityRef, V> FromIterator<V> for EntityVec<K, V> {
    fn from_iter<I: IntoIterator<Item = V>>(iter: I) -> Self {
        let mut m = EntityVec::new();
        for v in iter {
            m.push(v);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::entity!(Thing, "t");

    #[test]
    fn set_equality_ignores_capacity() {
        let mut a: EntitySet<Thing> = EntitySet::with_capacity(8);
        let mut b: EntitySet<Thing> = EntitySet::with_capacity(1000);
        a.insert(Thing(3));
        b.insert(Thing(3));
        assert_eq!(a, b);
        b.insert(Thing(700));
        assert_ne!(a, b);
        b.remove(Thing(700));
        assert_eq!(a, b);
    }

    #[test]
    fn word_operations_agree_with_members() {
        let set = |xs: &[u32], cap: usize| {
            let mut s: EntitySet<Thing> = EntitySet::with_capacity(cap);
            for &x in xs {
                s.insert(Thing(x));
            }
            s
        };
        let a = set(&[0, 63, 64, 130], 10);
        assert_eq!(a.iter().map(|t| t.0).collect::<Vec<_>>(), vec![0, 63, 64, 130]);
        let mut u = set(&[1], 1);
        assert!(u.union_with(&a));
        assert!(!u.union_with(&a));
        assert_eq!(u, set(&[0, 1, 63, 64, 130], 0));
        let mut d = set(&[5], 300);
        assert!(d.union_with_difference(&a, &set(&[63, 130], 0)));
        assert_eq!(d, set(&[0, 5, 64], 0));
        assert!(!d.union_with_difference(&a, &set(&[63, 130], 0)));
    }

    #[test]
    fn sparse_set_agrees_with_entity_set() {
        let sparse = |xs: &[u32]| xs.iter().map(|&x| Thing(x)).collect::<SparseSet<Thing>>();
        let a = sparse(&[130, 0, 64, 63, 0]);
        assert_eq!(a.iter().map(|t| t.0).collect::<Vec<_>>(), vec![0, 63, 64, 130]);
        let mut u = sparse(&[1]);
        assert!(u.union_with(&a));
        assert!(!u.union_with(&a));
        assert_eq!(u, sparse(&[0, 1, 63, 64, 130]));
        let mut d = sparse(&[5]);
        assert!(d.union_with_difference(&a, &sparse(&[63, 130])));
        assert_eq!(d, sparse(&[0, 5, 64]));
        assert!(!d.union_with_difference(&a, &sparse(&[63, 130])));
        assert!(d.insert(Thing(7)) && !d.insert(Thing(7)) && d.contains(Thing(7)));
        assert!(d.remove(Thing(7)) && !d.remove(Thing(7)) && !d.contains(Thing(7)));
        assert_eq!(d.len(), 3);
    }
}
